#!/bin/sh
# The remote backend between two network stacks on one machine: genie-server in a network
# namespace of its own behind a veth pair (10.213.N.2), build/test_remote's programs in this
# one (10.213.N.1), with a key (the server is not on loopback). Needs root and `ip netns`:
# one skip line otherwise. Run by `make test-remote-netns`.
set -u
skip() { echo "skip: remote backend across a network namespace ($1)"; exit 0; }
[ "$(id -u)" = 0 ] || skip "needs root"
command -v ip >/dev/null 2>&1 || skip "no ip command"
[ -x build/genie-server ] && [ -x build/test_remote ] || { echo "FAIL build/genie-server or build/test_remote missing"; exit 1; }
ns=gnr$$ a=gnra$$ b=gnrb$$ net=10.213.$(($$ % 250)) pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    ip link del "$a" 2>/dev/null
    ip netns del "$ns" 2>/dev/null
}
trap cleanup EXIT
ip netns add "$ns" 2>/dev/null || skip "ip netns add failed"
{ ip link add "$a" type veth peer name "$b" && ip link set "$b" netns "$ns" && ip addr add "$net.1/24" dev "$a" &&
  ip link set "$a" up && ip -n "$ns" addr add "$net.2/24" dev "$b" && ip -n "$ns" link set "$b" up &&
  ip -n "$ns" link set lo up; } 2>/dev/null || skip "no veth pair"
head -c 32 /dev/urandom > build/remote_netns.key
rm -f build/remote_netns.port
ip netns exec "$ns" env UCX_TLS=tcp UCX_NET_DEVICES="$b" UCX_WARN_UNUSED_ENV_VARS=n build/genie-server --listen "$net.2:0" \
    --port-file build/remote_netns.port --key-file build/remote_netns.key --threads 1 > build/remote_netns_server.log 2>&1 &
pid=$!
i=0
while [ ! -s build/remote_netns.port ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -s build/remote_netns.port ] || { echo "FAIL genie-server did not start in the namespace:"; cat build/remote_netns_server.log; exit 1; }
echo "  genie-server in namespace $ns at $net.2:$(cat build/remote_netns.port), the client on $a ($net.1)"
GENIE_REMOTE_TEST_SERVER="$net.2:$(cat build/remote_netns.port)" GENIE_REMOTE_KEY_FILE=build/remote_netns.key \
    UCX_TLS=tcp UCX_NET_DEVICES="$a" UCX_WARN_UNUSED_ENV_VARS=n build/test_remote
