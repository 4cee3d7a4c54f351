// Shared by pingpong.cpp and chord.cpp: the platform, the optional handler
// durations and the output line. See README.md.
#ifndef MACEPC_SIMGRID_PLATFORM_HPP
#define MACEPC_SIMGRID_PLATFORM_HPP

#include <simgrid/s4u.hpp>
#include <xbt/config.hpp>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

// Wire size of every message: macepc's Ping, Pong, Lookup and Reply Size().
constexpr double kMsgBytes = 64;

// With "exec" on the command line, every message handler (and a node's
// start) also computes for a duration drawn uniformly in [1 ms, 10 ms] on
// its 1 Gflop/s host: what macepc does for every event by default (its seed
// duration distribution). Without it handlers take no simulated time.
inline bool g_exec = false;

struct Handler {
  std::mt19937_64 rng;
  std::uniform_real_distribution<double> flops{1e6, 1e7};
  explicit Handler(long seed) : rng(seed) {}
  void run()
  {
    if (g_exec)
      sg4::this_actor::execute(flops(rng));
  }
};

// The configured network model ("CM02", "Constant", ...).
inline std::string network_model()
{
  return simgrid::config::get_value<std::string>("network/model");
}

// make_hosts builds n hosts of 1 Gflop/s. With network/model:Constant
// (which refuses links) they sit in an empty zone. With any other model
// they form a star, each host with one split-duplex link of 8 Mbit/s
// (1 MB/s) and 0.5 ms latency per direction: a message crosses the
// sender's up and the receiver's down link, so 1 ms of latency end to end
// (macepc's minimum delay, the Pareto scale) and 64 µs of transmission.
inline std::vector<sg4::Host*> make_hosts(long n)
{
  bool constant      = network_model() == "Constant";
  sg4::NetZone* zone = constant ? sg4::create_empty_zone("world") : sg4::create_star_zone("world");
  std::vector<sg4::Host*> hosts;
  hosts.reserve(n);
  for (long i = 0; i < n; i++) {
    sg4::Host* h = zone->create_host("h" + std::to_string(i), 1e9);
    if (!constant) {
      sg4::Link* l = zone->create_split_duplex_link("l" + std::to_string(i), 1e6)->set_latency(0.5e-3)->seal();
      zone->add_route(h->get_netpoint(), nullptr, nullptr, nullptr, {{l, sg4::LinkInRoute::Direction::UP}}, true);
    }
    h->seal();
    hosts.push_back(h);
  }
  zone->seal();
  return hosts;
}

// parse_flag consumes a trailing argument equal to name, if any.
inline bool parse_flag(int& argc, char* argv[], const char* name)
{
  if (argc >= 2 && std::strcmp(argv[argc - 1], name) == 0) {
    argc--;
    return true;
  }
  return false;
}

#endif
