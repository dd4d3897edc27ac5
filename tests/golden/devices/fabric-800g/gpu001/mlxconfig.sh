#!/usr/bin/env bash
# roceops: the fabric does not manage the NIC firmware settings of gpu001 (node.firmware: false).
