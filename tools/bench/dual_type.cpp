#include "dual_type.h"

#include <climits>
#include <cstring>

namespace loom_bench {

namespace {

void check_loom(loom_status s, const char *what) {
  if (s != LOOM_OK)
    throw TypeError(std::string("loom ") + what + ": " + loom_status_string(s));
}

void check_mpi(int rc, const char *what) {
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    throw TypeError(std::string("MPI ") + what + ": " + std::string(msg, len));
  }
}

int to_int(int64_t v, const char *what) {
  if (v < INT_MIN || v > INT_MAX)
    throw TypeError(std::string(what) + " does not fit in an MPI int");
  return static_cast<int>(v);
}

std::vector<int> to_ints(const std::vector<int64_t> &v, const char *what) {
  std::vector<int> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = to_int(v[i], what);
  return out;
}

}  // namespace

DualType::DualType(loom_type l, MPI_Datatype m, bool mpi_owned)
    : l_(l), m_(m), mpi_owned_(mpi_owned) {
  if (mpi_owned_) mpi_refs_ = new int(1);
}

DualType::~DualType() { release(); }

void DualType::release() {
  if (l_) loom_type_free(l_);
  l_ = nullptr;
  if (mpi_refs_ && --*mpi_refs_ == 0) {
    delete mpi_refs_;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && m_ != MPI_DATATYPE_NULL) MPI_Type_free(&m_);
  }
  mpi_refs_ = nullptr;
  m_ = MPI_DATATYPE_NULL;
}

DualType::DualType(const DualType &o)
    : l_(o.l_ ? loom_type_ref(o.l_) : nullptr),
      m_(o.m_),
      mpi_owned_(o.mpi_owned_),
      mpi_refs_(o.mpi_refs_) {
  if (mpi_refs_) ++*mpi_refs_;
}

DualType &DualType::operator=(const DualType &o) {
  if (this != &o) {
    DualType tmp(o);
    *this = std::move(tmp);
  }
  return *this;
}

DualType::DualType(DualType &&o) noexcept
    : l_(o.l_), m_(o.m_), mpi_owned_(o.mpi_owned_), mpi_refs_(o.mpi_refs_) {
  o.l_ = nullptr;
  o.m_ = MPI_DATATYPE_NULL;
  o.mpi_refs_ = nullptr;
}

DualType &DualType::operator=(DualType &&o) noexcept {
  if (this != &o) {
    release();
    l_ = o.l_;
    m_ = o.m_;
    mpi_owned_ = o.mpi_owned_;
    mpi_refs_ = o.mpi_refs_;
    o.l_ = nullptr;
    o.m_ = MPI_DATATYPE_NULL;
    o.mpi_refs_ = nullptr;
  }
  return *this;
}

DualType DualType::prim(loom_prim p, MPI_Datatype m) {
  loom_type l = nullptr;
  check_loom(loom_type_primitive(p, &l), "primitive");
  return DualType(l, m, false);
}

DualType DualType::contiguous(int64_t count, const DualType &old) {
  loom_type l = nullptr;
  check_loom(loom_type_contiguous(count, old.l_, &l), "contiguous");
  DualType r(l, MPI_DATATYPE_NULL, true);
  check_mpi(MPI_Type_contiguous(to_int(count, "count"), old.m_, &r.m_),
            "Type_contiguous");
  return r;
}

DualType DualType::vector(int64_t count, int64_t blocklen, int64_t stride,
                          const DualType &old) {
  loom_type l = nullptr;
  check_loom(loom_type_vector(count, blocklen, stride, old.l_, &l), "vector");
  DualType r(l, MPI_DATATYPE_NULL, true);
  check_mpi(MPI_Type_vector(to_int(count, "count"), to_int(blocklen, "blocklen"),
                             to_int(stride, "stride"), old.m_, &r.m_),
            "Type_vector");
  return r;
}

DualType DualType::hvector(int64_t count, int64_t blocklen, int64_t stride_bytes,
                           const DualType &old) {
  loom_type l = nullptr;
  check_loom(loom_type_hvector(count, blocklen, stride_bytes, old.l_, &l),
             "hvector");
  DualType r(l, MPI_DATATYPE_NULL, true);
  check_mpi(MPI_Type_create_hvector(to_int(count, "count"),
                                     to_int(blocklen, "blocklen"),
                                     static_cast<MPI_Aint>(stride_bytes), old.m_,
                                     &r.m_),
            "Type_create_hvector");
  return r;
}

DualType DualType::indexed(const std::vector<int64_t> &blocklens,
                           const std::vector<int64_t> &displs,
                           const DualType &old) {
  if (blocklens.size() != displs.size())
    throw TypeError("indexed: blocklens and displs differ in length");
  loom_type l = nullptr;
  const auto n = static_cast<int64_t>(blocklens.size());
  check_loom(loom_type_indexed(n, blocklens.data(), displs.data(), old.l_, &l),
             "indexed");
  DualType r(l, MPI_DATATYPE_NULL, true);
  auto bl = to_ints(blocklens, "blocklen");
  auto dp = to_ints(displs, "displacement");
  check_mpi(MPI_Type_indexed(to_int(n, "count"), bl.data(), dp.data(), old.m_,
                              &r.m_),
            "Type_indexed");
  return r;
}

DualType DualType::indexed_block(int64_t blocklen,
                                 const std::vector<int64_t> &displs,
                                 const DualType &old) {
  loom_type l = nullptr;
  const auto n = static_cast<int64_t>(displs.size());
  check_loom(loom_type_indexed_block(n, blocklen, displs.data(), old.l_, &l),
             "indexed_block");
  DualType r(l, MPI_DATATYPE_NULL, true);
  auto dp = to_ints(displs, "displacement");
  check_mpi(MPI_Type_create_indexed_block(to_int(n, "count"),
                                           to_int(blocklen, "blocklen"),
                                           dp.data(), old.m_, &r.m_),
            "Type_create_indexed_block");
  return r;
}

DualType DualType::hindexed_block(int64_t blocklen,
                                  const std::vector<int64_t> &displs_bytes,
                                  const DualType &old) {
  loom_type l = nullptr;
  const auto n = static_cast<int64_t>(displs_bytes.size());
  check_loom(loom_type_hindexed_block(n, blocklen, displs_bytes.data(), old.l_,
                                      &l),
             "hindexed_block");
  DualType r(l, MPI_DATATYPE_NULL, true);
  std::vector<MPI_Aint> dp(displs_bytes.begin(), displs_bytes.end());
  check_mpi(MPI_Type_create_hindexed_block(to_int(n, "count"),
                                            to_int(blocklen, "blocklen"),
                                            dp.data(), old.m_, &r.m_),
            "Type_create_hindexed_block");
  return r;
}

DualType DualType::struct_(const std::vector<int64_t> &blocklens,
                           const std::vector<int64_t> &displs_bytes,
                           const std::vector<DualType> &types,
                           loom_bounds_rule rule) {
  const size_t n = types.size();
  if (blocklens.size() != n || displs_bytes.size() != n)
    throw TypeError("struct: argument arrays differ in length");
  std::vector<loom_type> lt(n);
  std::vector<MPI_Datatype> mt(n);
  for (size_t i = 0; i < n; ++i) {
    lt[i] = types[i].l_;
    mt[i] = types[i].m_;
  }
  loom_type l = nullptr;
  check_loom(loom_type_struct(static_cast<int64_t>(n), blocklens.data(),
                              displs_bytes.data(), lt.data(), rule, &l),
             "struct");
  DualType r(l, MPI_DATATYPE_NULL, true);
  auto bl = to_ints(blocklens, "blocklen");
  std::vector<MPI_Aint> dp(displs_bytes.begin(), displs_bytes.end());
  check_mpi(MPI_Type_create_struct(to_int(static_cast<int64_t>(n), "count"),
                                    bl.data(), dp.data(), mt.data(), &r.m_),
            "Type_create_struct");
  return r;
}

DualType DualType::subarray(const std::vector<int64_t> &sizes,
                            const std::vector<int64_t> &subsizes,
                            const std::vector<int64_t> &starts, int order,
                            const DualType &old) {
  const size_t nd = sizes.size();
  if (subsizes.size() != nd || starts.size() != nd)
    throw TypeError("subarray: argument arrays differ in length");
  loom_type l = nullptr;
  check_loom(loom_type_subarray(static_cast<int>(nd), sizes.data(),
                                subsizes.data(), starts.data(), order, old.l_,
                                &l),
             "subarray");
  DualType r(l, MPI_DATATYPE_NULL, true);
  auto sz = to_ints(sizes, "size");
  auto ss = to_ints(subsizes, "subsize");
  auto st = to_ints(starts, "start");
  check_mpi(MPI_Type_create_subarray(
                static_cast<int>(nd), sz.data(), ss.data(), st.data(),
                order == LOOM_ORDER_C ? MPI_ORDER_C : MPI_ORDER_FORTRAN, old.m_,
                &r.m_),
            "Type_create_subarray");
  return r;
}

DualType DualType::resized(const DualType &old, int64_t lb, int64_t extent) {
  loom_type l = nullptr;
  check_loom(loom_type_resized(old.l_, lb, extent, &l), "resized");
  DualType r(l, MPI_DATATYPE_NULL, true);
  check_mpi(MPI_Type_create_resized(old.m_, static_cast<MPI_Aint>(lb),
                                     static_cast<MPI_Aint>(extent), &r.m_),
            "Type_create_resized");
  return r;
}

void DualType::commit() {
  check_loom(loom_type_commit(l_), "commit");
  if (mpi_owned_) check_mpi(MPI_Type_commit(&m_), "Type_commit");
}

loom_bounds_rule native_bounds_rule() {
#if defined(MPICH_VERSION)
  return LOOM_BOUNDS_MPICH;
#else
  return LOOM_BOUNDS_STANDARD;
#endif
}

std::string mpi_library_version() {
  char buf[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(buf, &len);
  std::string s(buf, static_cast<size_t>(len));
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\0')) s.pop_back();
  return s;
}

std::string mpi_library_name() {
  std::string s = mpi_library_version();
  auto nl = s.find_first_of("\n,");
  if (nl != std::string::npos) s.resize(nl);
  // "MPICH Version:\t4.0.2" -> "MPICH 4.0.2"; "Open MPI v4.1.4" -> as is.
  auto pos = s.find("Version:");
  if (pos != std::string::npos) {
    std::string ver = s.substr(pos + 8);
    size_t b = ver.find_first_not_of(" \t");
    ver = b == std::string::npos ? "" : ver.substr(b);
    s = s.substr(0, pos);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
    s += " " + ver;
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.pop_back();
  return s;
}

}  // namespace loom_bench
