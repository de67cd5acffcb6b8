// The predefined element kinds on x86-64 Linux (gcc, gfortran), with the
// MPI standard's external32 sizes.
#include <complex>

#include "type.hpp"

namespace loom {
namespace {
using C = PrimInfo;
constexpr PrimInfo kPrims[LOOM_PRIM_COUNT] = {
    {"char", 1, 1, 1, C::Int, 1},
    {"signed_char", 1, 1, 1, C::Int, 1},
    {"unsigned_char", 1, 1, 1, C::Uint, 1},
    {"byte", 1, 1, 1, C::Bytes, 1},
    {"packed", 1, 1, 1, C::Bytes, 1},
    {"short", 2, 2, 2, C::Int, 1},
    {"unsigned_short", 2, 2, 2, C::Uint, 1},
    {"int", 4, 4, 4, C::Int, 1},
    {"unsigned", 4, 4, 4, C::Uint, 1},
    {"long", 8, 8, 4, C::Int, 1},
    {"unsigned_long", 8, 8, 4, C::Uint, 1},
    {"long_long", 8, 8, 8, C::Int, 1},
    {"unsigned_long_long", 8, 8, 8, C::Uint, 1},
    {"float", 4, 4, 4, C::Float, 1},
    {"double", 8, 8, 8, C::Float, 1},
    {"long_double", 16, 16, 16, C::LongDouble, 1},
    {"wchar", 4, 4, 2, C::Uint, 1},
    {"c_bool", 1, 1, 1, C::Uint, 1},
    {"int8", 1, 1, 1, C::Int, 1},
    {"int16", 2, 2, 2, C::Int, 1},
    {"int32", 4, 4, 4, C::Int, 1},
    {"int64", 8, 8, 8, C::Int, 1},
    {"uint8", 1, 1, 1, C::Uint, 1},
    {"uint16", 2, 2, 2, C::Uint, 1},
    {"uint32", 4, 4, 4, C::Uint, 1},
    {"uint64", 8, 8, 8, C::Uint, 1},
    {"aint", 8, 8, 8, C::Int, 1},
    {"offset", 8, 8, 8, C::Int, 1},
    {"count", 8, 8, 8, C::Int, 1},
    {"c_float_complex", 8, 4, 8, C::Complex, 1},
    {"c_double_complex", 16, 8, 16, C::Complex, 1},
    {"c_long_double_complex", 32, 16, 32, C::Complex, 1},
    {"cxx_bool", 1, 1, 1, C::Uint, 1},
    {"f_character", 1, 1, 1, C::Bytes, 1},
    {"f_integer", 4, 4, 4, C::Int, 1},
    {"f_real", 4, 4, 4, C::Float, 1},
    {"f_double_precision", 8, 8, 8, C::Float, 1},
    {"f_complex", 8, 4, 8, C::Complex, 1},
    {"f_double_complex", 16, 8, 16, C::Complex, 1},
    {"f_logical", 4, 4, 4, C::Int, 1},
    {"f_integer1", 1, 1, 1, C::Int, 1},
    {"f_integer2", 2, 2, 2, C::Int, 1},
    {"f_integer4", 4, 4, 4, C::Int, 1},
    {"f_integer8", 8, 8, 8, C::Int, 1},
    {"f_real4", 4, 4, 4, C::Float, 1},
    {"f_real8", 8, 8, 8, C::Float, 1},
    {"f_real16", 16, 16, 16, C::Float, 1},  // binary128 in gfortran
    // Pair types: size/extent describe the whole pair; members in pair.cpp.
    {"float_int", 8, 4, 8, C::Pair, 2},
    {"double_int", 12, 8, 12, C::Pair, 2},
    {"long_int", 12, 8, 8, C::Pair, 2},
    {"2int", 8, 4, 8, C::Pair, 2},
    {"short_int", 6, 4, 6, C::Pair, 2},
    {"long_double_int", 20, 16, 20, C::Pair, 2},
    {"2real", 8, 4, 8, C::Pair, 2},
    {"2double_precision", 16, 8, 16, C::Pair, 2},
    {"2integer", 8, 4, 8, C::Pair, 2},
};
}  // namespace

const PrimInfo &prim_info(loom_prim p) { return kPrims[p]; }
}  // namespace loom
