// The layout caches (l2l_layouts.hpp).
#include "l2l_layouts.hpp"

#include "l2l_move.hpp"

#include <list>
#include <mutex>
#include <unordered_map>

namespace loom_mpi {
namespace l2l {
namespace {

constexpr size_t kLocalEntries = 256;
constexpr size_t kRemoteEntries = 256;
constexpr uint64_t kMaxLayoutBytes = uint64_t(64) << 20;

// A small LRU map: list front is the most recent; the map points into it.
template <class K, class V, class H = std::hash<K>>
class Lru {
 public:
  explicit Lru(size_t cap) : cap_(cap) {}
  V *find(const K &k) {
    auto it = map_.find(k);
    if (it == map_.end()) return nullptr;
    items_.splice(items_.begin(), items_, it->second);
    return &it->second->second;
  }
  // Inserts (k, v); returns the evicted value's key and value if any.
  template <class Evict>
  V *put(const K &k, V v, Evict evict) {
    items_.emplace_front(k, std::move(v));
    map_[k] = items_.begin();
    if (items_.size() > cap_) {
      auto &last = items_.back();
      evict(last.second);
      map_.erase(last.first);
      items_.pop_back();
    }
    return &items_.front().second;
  }

 private:
  size_t cap_;
  std::list<std::pair<K, V>> items_;
  std::unordered_map<K, typename std::list<std::pair<K, V>>::iterator, H> map_;
};

struct RemoteKey {
  int world;
  uint64_t id;
  bool operator==(const RemoteKey &o) const { return world == o.world && id == o.id; }
};
struct RemoteHash {
  size_t operator()(const RemoteKey &k) const { return k.id * 31 + (size_t)k.world; }
};

struct LocalEntry {
  loom_type type;  // referenced: keeps the key from being reused
  std::shared_ptr<const Layout> layout;
};

std::mutex g_mu;
// Never destroyed (atexit-time MPI calls).
auto *g_local = new Lru<loom_type, LocalEntry>(kLocalEntries);
auto *g_remote = new Lru<RemoteKey, loom_type, RemoteHash>(kRemoteEntries);

}  // namespace

std::shared_ptr<const Layout> local_layout(loom_type t) {
  std::lock_guard<std::mutex> g(g_mu);
  if (LocalEntry *e = g_local->find(t)) return e->layout;
  size_t len = 0;
  loom_status st = loom_layout_encode(t, nullptr, 0, &len);
  if (st != LOOM_ERR_TRUNCATE && st != LOOM_OK) return nullptr;
  auto lay = std::make_shared<Layout>();
  lay->bytes.resize(len);
  if (loom_layout_encode(t, &lay->bytes[0], len, &len) != LOOM_OK) return nullptr;
  lay->bytes.resize(len);
  lay->id = loom_layout_id(lay->bytes.data(), len);
  loom_type_ref(t);
  g_local->put(t, LocalEntry{t, lay}, [](LocalEntry &e) { loom_type_free(e.type); });
  return lay;
}

loom_type remote_layout(const Header &sender, const Slot &s) {
  std::lock_guard<std::mutex> g(g_mu);
  RemoteKey k{sender.world_rank, s.layout_id};
  if (loom_type *t = g_remote->find(k)) {
    loom_type_ref(*t);
    return *t;
  }
  if (s.layout_len == 0 || s.layout_len > kMaxLayoutBytes) return nullptr;
  std::string bytes(s.layout_len, '\0');
  if (read_bytes(sender.pid, s.layout_addr, &bytes[0], bytes.size()) != Moved::ok)
    return nullptr;
  if (loom_layout_id(bytes.data(), bytes.size()) != s.layout_id) return nullptr;
  loom_type t = nullptr;
  if (loom_layout_decode(bytes.data(), bytes.size(), &t) != LOOM_OK) return nullptr;
  loom_type_ref(t);  // the caller's reference; the cache keeps its own
  g_remote->put(k, t, [](loom_type &old) { loom_type_free(old); });
  return t;
}

}  // namespace l2l
}  // namespace loom_mpi
