#!/bin/sh
# Runs as the first process of host A's network namespace (host-lab.ts starts it, as root with
# `unshare --net`, as a normal user with `unshare --map-current-user --keep-caps --net`): brings up
# A's loopback, makes host B's namespace beside it (its first process a sleep), joins the two with a
# veth pair named eth0 on each side, A at $1.1/24 and B at $1.2/24, says `ready A_PID B_PID`, and holds
# both until its stdin closes (the lab went away). Usage: hold-hosts.sh SUBNET (e.g. 10.10.0)
set -eu
net=$1
ip link set lo up
unshare --net -- sh -c 'ip link set lo up && exec sleep 86400' &
b=$!
mine=$(readlink /proc/$$/ns/net)
tries=0
while [ "$(readlink /proc/$b/ns/net 2>/dev/null || echo "$mine")" = "$mine" ]; do
  tries=$((tries + 1))
  [ "$tries" -gt 250 ] && { echo "host B's namespace did not appear" >&2; exit 1; }
  sleep 0.02
done
ip link add eth0 type veth peer name eth0 netns "$b"
ip addr add "$net.1/24" dev eth0
ip link set eth0 up
nsenter --target "$b" --net ip addr add "$net.2/24" dev eth0
nsenter --target "$b" --net ip link set eth0 up
echo "ready $$ $b"
cat >/dev/null || true
kill "$b" 2>/dev/null || true
