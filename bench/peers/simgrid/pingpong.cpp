// Ping-pong on SimGrid's s4u API: the SimGrid side of macepc's peer
// comparison (see README.md in this directory).
//
// P pairs of actors on 2P hosts. Actor 2i sends a 64-byte message to actor
// 2i+1, which answers with a 64-byte message; each pair plays M/(2P) rounds,
// so the run delivers exactly M messages in total. The program prints one
// line of key=value fields; wall_s is the wall time of Engine::run() only
// (platform construction and actor creation, setup_s, are excluded).
//
// Usage: pingpong_sg [SimGrid options such as --cfg=... --log=...] P M [exec]

#include "platform.hpp"

#include <chrono>
#include <cstdlib>

namespace {

long long g_delivered = 0; // messages received, all actors
int g_token           = 0; // the payload (a pointer is passed, never copied)

void pinger(sg4::Mailbox* self, sg4::Mailbox* peer, long rounds, long seed)
{
  Handler h(seed);
  h.run(); // macepc's init event
  for (long r = 0; r < rounds; r++) {
    peer->put(&g_token, kMsgBytes);
    self->get<int>();
    g_delivered++;
    h.run();
  }
}

void ponger(sg4::Mailbox* self, sg4::Mailbox* peer, long rounds, long seed)
{
  Handler h(seed);
  for (long r = 0; r < rounds; r++) {
    self->get<int>();
    g_delivered++;
    h.run();
    peer->put(&g_token, kMsgBytes);
  }
}

} // namespace

int main(int argc, char* argv[])
{
  sg4::Engine e(&argc, argv); // consumes --cfg=... and --log=...
  g_exec = parse_flag(argc, argv, "exec");
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s [--cfg=...] PAIRS MESSAGES [exec]\n", argv[0]);
    return 2;
  }
  long pairs    = std::atol(argv[1]);
  long messages = std::atol(argv[2]);
  if (pairs < 1 || messages < 2 * pairs || messages % (2 * pairs) != 0) {
    std::fprintf(stderr, "MESSAGES must be a positive multiple of 2*PAIRS\n");
    return 2;
  }
  long rounds = messages / (2 * pairs);

  auto s0                       = std::chrono::steady_clock::now();
  std::vector<sg4::Host*> hosts = make_hosts(2 * pairs);
  for (long i = 0; i < pairs; i++) {
    sg4::Mailbox* a = sg4::Mailbox::by_name("m" + std::to_string(2 * i));
    sg4::Mailbox* b = sg4::Mailbox::by_name("m" + std::to_string(2 * i + 1));
    sg4::Actor::create("ping" + std::to_string(i), hosts[2 * i], pinger, a, b, rounds, 2 * i);
    sg4::Actor::create("pong" + std::to_string(i), hosts[2 * i + 1], ponger, b, a, rounds, 2 * i + 1);
  }
  auto t0 = std::chrono::steady_clock::now();
  e.run();
  auto t1 = std::chrono::steady_clock::now();

  double wall = std::chrono::duration<double>(t1 - t0).count();
  std::printf("sim=simgrid workload=pingpong model=%s exec=%d size=%ld messages=%lld setup_s=%.3f wall_s=%.3f "
              "msgs_per_s=%.0f simtime_s=%.3f\n",
              network_model().c_str(), int(g_exec), pairs, g_delivered,
              std::chrono::duration<double>(t0 - s0).count(), wall, double(g_delivered) / wall,
              sg4::Engine::get_clock());
  return g_delivered == messages ? 0 : 1;
}
