// The oracles of the signature test.  The reference interpreter
// (tests/support) says what a receive must leave: the bytes of the whole
// receive buffer, gaps included, the error class and the counts.  The
// system MPI doing the same exchange (PMPI_*) is the second oracle.  Where
// the two disagree the reference decides, and the report says so.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sig_case.hpp"

namespace sigtest {

// Buffer contents any rank can recompute: the byte at offset x from a
// buffer's origin is keyed(key, x).
unsigned char keyed(uint64_t key, int64_t x);
void keyed_fill(Buf &b, uint64_t key);
// The message packing `count` instances of l from a keyed buffer makes.
std::vector<unsigned char> keyed_stream(const Layout &l, int64_t count, uint64_t key);

// What a receive of `sent` bytes (whole basic elements of a matching
// signature) into recv must report.
struct Expected {
  int err;           // MPI_SUCCESS or MPI_ERR_TRUNCATE
  int64_t bytes;     // received
  int64_t count;     // MPI_Get_count (MPI_UNDEFINED unless whole instances)
  int64_t elements;  // MPI_Get_elements
  bool whole;        // a whole number of instances arrived
};
Expected expect(int64_t sent, const Side &recv);

// Unpacks the first `bytes` of stream into recv's layout, its origin at
// buf[at].
void unpack_at(std::vector<unsigned char> *buf, int64_t at, const Side &recv,
               const std::vector<unsigned char> &stream, int64_t bytes);

// Marks the bytes of buf (recv's origin at buf[at]) whose value nobody
// defines: on MPICH the 6 pad bytes of every x87 long double (its typed
// paths move 10 bytes: they stay unwritten on receive and carry
// unspecified bytes on the wire; see tests/comm/comm_test.hpp has_x87).
void mark_undefined(std::vector<bool> *mask, int64_t at, const Side &recv);

// Marks the bytes recv's layout covers (a truncated receive may write
// nothing else).
void mark_covered(std::vector<bool> *mask, int64_t at, const Side &recv);

// One trial's findings on this rank, printed with the trial's context
// (seed, trial, call, both types) when it goes out of scope.  Made before
// the exchange: LOOM_TEST_TRACE=1 prints the context then.
class Report {
 public:
  // system_tested: the path under test is the system itself (--system),
  // so there is no separate system oracle.
  Report(std::string context, bool system_tested);
  Report(const Report &) = delete;
  Report &operator=(const Report &) = delete;
  ~Report();

  // Buffer contents: want (reference), got (tested path), sys (system
  // oracle, null if not run); bytes where skip is set are not compared;
  // base: the origin-relative address of got[0] (for messages).
  void bytes(const std::string &what, const std::vector<unsigned char> &want,
             const std::vector<unsigned char> &got, const std::vector<unsigned char> *sys,
             const std::vector<bool> &skip, int64_t base);
  // A number (error class, count): the same three-way comparison.
  void value(const std::string &what, int64_t want, int64_t got, const int64_t *sys);
  // A failure with no oracle involved (a call failed, a send buffer
  // changed).
  void fail(const std::string &line);
  // The exchange meets a documented system defect (`why`): where the
  // system is the path under test (--system), its mismatches are noted,
  // not failed.
  void known_system_defect(std::string why) { known_ = std::move(why); }

  // The context line, for callers that print extra detail.
  const std::string &context() const { return context_; }

 private:
  void judge(const std::string &what, bool ok, const int *sys_ok, const std::string &detail);
  std::string context_;
  bool system_tested_;
  std::string known_;
  std::vector<std::string> fails_, notes_;
};

// On SIGABRT, SIGSEGV, SIGBUS or SIGFPE (a system MPI crashing inside an
// exchange), prints the context of the latest Report (seed, trial, types)
// to stderr, then hands the signal to the handler installed before (the
// MPI's backtrace, the sanitizers' report).  Call after MPI_Init.
void report_crashes();

// Counters over the run.
struct Tally {
  long checks = 0;        // comparisons against the reference
  long sys_checks = 0;    // ... also against the system
  long sys_wrong = 0;     // the system differed from the reference
  long known = 0;         // --system: mismatches of documented defects
  long unsafe = 0;        // exchanges the system cannot run (system_unsafe)
};
Tally &tally();

}  // namespace sigtest
