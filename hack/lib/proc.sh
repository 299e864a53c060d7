# proc.sh: how hack scripts start long-lived processes (sourced).
#
# `flock /tmp/gpuwise-integration.lock make …` hands its lock descriptor
# to every child. A server started in the background that kept it would
# hold the lock for as long as it lives — past its tier, if the tier died
# before its trap ran — and block every other session's tiers. So servers
# (Prometheus, VictoriaMetrics, the control plane, gpuwise serve) are
# started with detach, and stopped by the caller's trap (down.sh).

# detach CMD [ARGS...]: run CMD in the background with every file
# descriptor above 2 closed; redirect its output at the call
# (`detach prometheus … >log 2>&1`). $! is CMD's pid afterwards (the
# subshell execs CMD).
detach() {
  (
    for fd in /proc/$BASHPID/fd/*; do
      fd=${fd##*/}
      if [ "$fd" -gt 2 ] 2>/dev/null; then eval "exec $fd>&-"; fi
    done
    exec "$@"
  ) &
}
