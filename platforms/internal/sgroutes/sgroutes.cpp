// sgroutes prints the routes SimGrid computes between hosts of a platform,
// as Host::route_to returns them with the ptask_L07 host model (the model
// Batsim uses). It is the oracle of the route tests of package platforms.
//
// Usage: sgroutes platform.xml < pairs
// Each input line is "src dst" (two host names), or "*" for every ordered
// pair of hosts in name order. Output lines:
//   L name bandwidth latency policy   a link, the first time a route uses it
//   R src dst latency n link1 ... linkn
//   E src dst message                 route_to threw an exception
//   P host1 host2 ...                 the platform is loaded: its hosts, in name order
//   F message                         the platform was refused
// Numbers are printed with %.17g. Output is flushed after every route, so
// that a caller can tell which pair made SimGrid abort.
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <set>
#include <string>
#include <vector>

static const char* policy_name(simgrid::s4u::Link::SharingPolicy p)
{
  switch (p) {
    case simgrid::s4u::Link::SharingPolicy::FATPIPE:
      return "FATPIPE";
    case simgrid::s4u::Link::SharingPolicy::SHARED:
      return "SHARED";
    case simgrid::s4u::Link::SharingPolicy::SPLITDUPLEX:
      return "SPLITDUPLEX";
    default:
      return "OTHER";
  }
}

int main(int argc, char** argv)
{
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s platform.xml < pairs\n", argv[0]);
    return 2;
  }
  std::string file = argv[1];
  int sg_argc      = 2;
  char log_arg[]   = "--log=root.thresh:critical";
  char* sg_argv[]  = {argv[0], log_arg, nullptr};
  simgrid::s4u::Engine e(&sg_argc, sg_argv);
  e.set_config("host/model:ptask_L07");
  try {
    e.load_platform(file);
    e.seal_platform(); // as Engine::run does before any route is computed
  } catch (const std::exception& ex) {
    std::string msg = ex.what();
    std::replace(msg.begin(), msg.end(), '\n', ' ');
    std::printf("F %s\n", msg.c_str());
    return 3;
  }
  std::vector<std::string> names;
  for (auto const* h : e.get_all_hosts())
    names.push_back(h->get_name());
  std::sort(names.begin(), names.end());
  std::printf("P");
  for (auto const& n : names)
    std::printf(" %s", n.c_str());
  std::printf("\n");
  std::fflush(stdout);

  std::vector<std::pair<std::string, std::string>> pairs;
  std::string a;
  while (std::cin >> a) {
    if (a == "*") {
      for (auto const& s : names)
        for (auto const& d : names)
          pairs.emplace_back(s, d);
      continue;
    }
    std::string b;
    std::cin >> b;
    pairs.emplace_back(a, b);
  }

  std::set<std::string> seen;
  for (auto const& [s, d] : pairs) {
    auto const* src = e.host_by_name(s);
    auto const* dst = e.host_by_name(d);
    std::vector<simgrid::s4u::Link*> links;
    double lat = 0;
    try {
      src->route_to(dst, links, &lat);
    } catch (const std::exception& ex) {
      std::string msg = ex.what();
      std::replace(msg.begin(), msg.end(), '\n', ' ');
      std::printf("E %s %s %s\n", s.c_str(), d.c_str(), msg.c_str());
      std::fflush(stdout);
      continue;
    }
    for (auto const* l : links)
      if (seen.insert(l->get_name()).second)
        std::printf("L %s %.17g %.17g %s\n", l->get_cname(), l->get_bandwidth(), l->get_latency(),
                    policy_name(l->get_sharing_policy()));
    std::printf("R %s %s %.17g %zu", s.c_str(), d.c_str(), lat, links.size());
    for (auto const* l : links)
      std::printf(" %s", l->get_cname());
    std::printf("\n");
    std::fflush(stdout);
  }
  return 0;
}
