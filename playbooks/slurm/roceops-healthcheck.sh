#!/bin/sh
# Slurm HealthCheckProgram: `roceops slurm healthcheck` for this node (it drains the node through scontrol when
# a RoCE check fails, and resumes it when roceops had drained it and it is healthy again).
# slurmd runs it with only SLURMD_NODENAME set, so settings come from a file of VAR=value lines:
# $ROCEOPS_SLURM_ENV, else roceops-slurm.env beside this script (see roceops-slurm.env.example).
# slurm.conf: HealthCheckProgram=/etc/slurm/roceops-healthcheck.sh  HealthCheckInterval=300
set -u
here=$(dirname -- "$0")
env_file=${ROCEOPS_SLURM_ENV:-$here/roceops-slurm.env}
if [ -r "$env_file" ]; then
    set -a
    # shellcheck source=/dev/null
    . "$env_file"
    set +a
fi
PATH=${ROCEOPS_PATH:-/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin}
export PATH
exec "${ROCEOPS:-roceops}" slurm healthcheck "$@"
