// Out-of-memory runs of one C API call.  A scenario prepares handles with
// memory available (its constructor), performs the call under test (act),
// checks a successful result against the reference (verify) and frees
// everything (its destructor).  exhaust() runs the call with its 1st, 2nd,
// ... allocation failing, then again with every allocation from the Nth on
// failing, each N until the call runs through without meeting a failure.
// Every run must return LOOM_OK or LOOM_ERR_NOMEM, must leak nothing (the
// live blocks return to their count before the scenario), and must leave
// the handles working: after LOOM_ERR_NOMEM the same call, repeated with
// memory available, succeeds and gives the reference result.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "failing_alloc.hpp"
#include "loom.h"

namespace loomtest {

class Scenario {
 public:
  virtual ~Scenario() = default;
  virtual loom_status act() = 0;
  virtual void verify() = 0;
};

using MakeScenario = std::function<std::unique_ptr<Scenario>()>;

// Returns how many failure points the call met (for a test's own sanity
// checks: a call that allocates must have met at least one).
inline int64_t exhaust(const std::string &what, const MakeScenario &make) {
  SCOPED_TRACE(what);
  {  // Once with memory available: lazy statics (gtest's, the reference's)
     // are built here, not counted as leaks below.
    auto s = make();
    EXPECT_EQ(s->act(), LOOM_OK);
    s->verify();
  }
  int64_t points = 0;
  for (bool sticky : {false, true}) {
    for (int64_t n = 1;; ++n) {
      const int64_t live = oom::live_blocks();
      int64_t failed;
      {
        auto s = make();
        oom::arm(n, sticky);
        const loom_status st = s->act();
        failed = oom::disarm();
        const std::string at = std::string(sticky ? "allocations from #" : "allocation #") +
                               std::to_string(n) + " failing: " + loom_status_string(st);
        if (st != LOOM_OK) {
          EXPECT_EQ(st, LOOM_ERR_NOMEM) << at;
          if (st != LOOM_ERR_NOMEM) return points;
          EXPECT_GT(failed, 0) << at << " although no allocation failed";
          EXPECT_EQ(s->act(), LOOM_OK) << at << ", then again with memory";
        }
        s->verify();
        if (::testing::Test::HasFailure()) {
          ADD_FAILURE() << at;
          return points;
        }
      }
      if (oom::live_blocks() != live) {
        ADD_FAILURE() << oom::live_blocks() - live << " blocks leaked with "
                      << (sticky ? "allocations from #" : "allocation #") << n << " failing";
        return points;
      }
      if (failed == 0) break;  // the call never reached allocation n
      if (!sticky) ++points;
    }
  }
  return points;
}

}  // namespace loomtest
