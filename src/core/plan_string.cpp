#include <string>

#include "plan.hpp"

namespace loom {
namespace {
void put(const Node *n, std::string &s) {
  if (!n) {
    s += "empty";
    return;
  }
  if (n->off) s += "@" + std::to_string(n->off) + ":";
  switch (n->kind) {
    case Kind::Block: s += "blk" + std::to_string(n->count); return;
    case Kind::Vec:
      s += "vec(" + std::to_string(n->count) + "," + (n->stride >= 0 ? "+" : "") +
           std::to_string(n->stride) + ",";
      put(n->child.get(), s);
      s += ")";
      return;
    case Kind::Idx:
      s += "idx(" + std::to_string(n->count) + ",";
      put(n->child.get(), s);
      s += ")";
      return;
    case Kind::IdxV: s += "idxv(" + std::to_string(n->count) + ")"; return;
    case Kind::Struct:
      s += "struct(";
      for (size_t i = 0; i < n->kids.size(); i++) {
        if (i) s += ",";
        if (i == 4 && n->kids.size() > 5) {
          s += "..." + std::to_string(n->kids.size() - 4) + " more";
          break;
        }
        put(n->kids[i].get(), s);
      }
      s += ")";
      return;
  }
}
}  // namespace

std::string plan_string(const Node *n) {
  std::string s;
  put(n, s);
  return s;
}
}  // namespace loom
