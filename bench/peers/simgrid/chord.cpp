// Chord-like lookups on SimGrid's s4u API: the protocol-shaped workload of
// macepc's peer comparison (see README.md in this directory).
//
// N nodes on a ring of identifiers 0..N-1 (node i owns key i), each with
// a static finger table: finger j of node i is (i + 2^j) mod N. Every node
// keeps one lookup outstanding: it picks a random key other than its own
// and routes Lookup(key, origin) greedily, each hop to the farthest finger
// that does not pass the key (about log2(N)/2 hops); the owner answers the
// origin directly with Reply, on which the origin starts its next lookup.
// The run stops after M deliveries (hops plus replies). There is no
// stabilisation, churn or timeout: the finger tables are exact.
//
// Every node's mailbox has a permanent receiver (the node), so a transfer
// starts when it is sent, as on an open TCP connection, not when the
// receiver asks for it; the sender blocks until its transfer is over. The
// message is encoded in the pointer value itself: no allocation per
// message.
//
// Usage: chord_sg [SimGrid options such as --cfg=... --log=...] N M [exec] [detach]

#include "platform.hpp"

#include <chrono>
#include <cstdint>
#include <cstdlib>

namespace {

long long g_delivered = 0; // messages received, all nodes
long long g_target    = 0; // M
long g_nodes          = 0;
std::vector<std::vector<int32_t>> g_fingers;
std::vector<sg4::Mailbox*> g_mbox;
sg4::SemaphorePtr g_done;
bool g_detach = false;

enum : uint64_t { kLookup = 1, kReply = 2 };

void* encode(uint64_t kind, uint64_t key, uint64_t origin)
{
  return reinterpret_cast<void*>(static_cast<uintptr_t>(kind << 48 | key << 24 | origin));
}

class Node {
  long id_;
  const std::vector<int32_t>& fingers_;
  std::mt19937_64 rng_;
  Handler handler_;

  // send is a blocking put to a mailbox with a permanent receiver: the
  // transfer starts at once and the put returns when it is over, whether or
  // not the receiver is waiting, so no two nodes can deadlock. Of the ways
  // tried this was the fastest in SimGrid 3.32 (see README.md). With
  // "detach" it is a detached send instead (put_init()->detach(), the
  // idiom), which SimGrid 3.32 keeps in one list of all detached
  // communications that it scans linearly when each completes: O(N) per
  // message here.
  void send(long to, void* msg)
  {
    if (g_detach)
      g_mbox[to]->put_init(msg, kMsgBytes)->detach();
    else
      g_mbox[to]->put(msg, kMsgBytes);
  }

  // route forwards a lookup one hop, or answers it if this node owns key.
  void route(uint64_t key, uint64_t origin)
  {
    if (static_cast<long>(key) == id_) {
      send(origin, encode(kReply, key, 0));
      return;
    }
    long d = (static_cast<long>(key) - id_ + g_nodes) % g_nodes;
    int j  = 63 - __builtin_clzl(d); // largest 2^j <= d
    send(fingers_[j], encode(kLookup, key, origin));
  }

  void start()
  {
    long key = std::uniform_int_distribution<long>(0, g_nodes - 2)(rng_);
    if (key >= id_)
      key++;
    route(key, id_);
  }

public:
  Node(long id) : id_(id), fingers_(g_fingers[id]), rng_(id), handler_(id + 0x9e3779b9) {}

  void operator()()
  {
    sg4::Actor::self()->daemonize(); // killed when the controller ends
    handler_.run(); // macepc's init event
    start();
    for (;;) {
      auto v = reinterpret_cast<uintptr_t>(g_mbox[id_]->get<char>());
      if (++g_delivered == g_target)
        g_done->release();
      handler_.run();
      uint64_t kind = v >> 48, key = (v >> 24) & 0xffffff, origin = v & 0xffffff;
      if (kind == kReply)
        start();
      else
        route(key, origin);
    }
  }
};

} // namespace

int main(int argc, char* argv[])
{
  sg4::Engine e(&argc, argv); // consumes --cfg=... and --log=...
  for (bool more = true; more;) {
    more = false;
    if (parse_flag(argc, argv, "exec"))
      g_exec = more = true;
    if (parse_flag(argc, argv, "detach"))
      g_detach = more = true;
  }
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s [--cfg=...] NODES MESSAGES [exec] [detach]\n", argv[0]);
    return 2;
  }
  g_nodes  = std::atol(argv[1]);
  g_target = std::atoll(argv[2]);
  if (g_nodes < 2 || g_nodes >= (1 << 24) || g_target < 1) {
    std::fprintf(stderr, "need 2 <= NODES < 2^24 and MESSAGES >= 1\n");
    return 2;
  }

  auto s0                       = std::chrono::steady_clock::now();
  std::vector<sg4::Host*> hosts = make_hosts(g_nodes);
  g_fingers.resize(g_nodes);
  for (long i = 0; i < g_nodes; i++) {
    for (long step = 1; step < g_nodes; step *= 2)
      g_fingers[i].push_back(static_cast<int32_t>((i + step) % g_nodes));
    g_mbox.push_back(sg4::Mailbox::by_name("m" + std::to_string(i)));
  }
  g_done = sg4::Semaphore::create(0);
  for (long i = 0; i < g_nodes; i++)
    g_mbox[i]->set_receiver(sg4::Actor::create("node" + std::to_string(i), hosts[i], Node(i)));
  // The only non-daemon actor: when it returns, the simulation ends.
  sg4::Actor::create("controller", hosts[0], [] { g_done->acquire(); });
  auto t0 = std::chrono::steady_clock::now();
  e.run();
  auto t1 = std::chrono::steady_clock::now();

  double wall = std::chrono::duration<double>(t1 - t0).count();
  std::printf("sim=simgrid workload=chord model=%s exec=%d detach=%d size=%ld messages=%lld setup_s=%.3f wall_s=%.3f "
              "msgs_per_s=%.0f simtime_s=%.3f\n",
              network_model().c_str(), int(g_exec), int(g_detach), g_nodes, g_delivered,
              std::chrono::duration<double>(t0 - s0).count(), wall, double(g_delivered) / wall,
              sg4::Engine::get_clock());
  return g_delivered >= g_target ? 0 : 1;
}
