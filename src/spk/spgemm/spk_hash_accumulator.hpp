// HashAccumulator: a small non-owning open-addressing hash map from column
// indices to values, meant to live on team scratch (shared) memory or on a
// slab of global memory.  SpGEMM's symbolic phase uses it as a set (counting
// distinct columns of a row of C), the numeric phase as a map (summing the
// products of a row of C).
#pragma once

#include <cstdint>
#include <spk_compat.hpp>
#include <spk_scalar_traits.hpp>
#include <type_traits>

namespace spk {

// ---- Policies (defaulted template parameters of HashAccumulator) -----------

/// Hash: the key's low bits.  Best for the banded and clustered column sets
/// of PDE matrices (a row's columns fall into distinct consecutive slots).
struct HashMask {
  template <class Key>
  KOKKOS_FORCEINLINE_FUNCTION static std::uint32_t hash(Key k) noexcept {
    return static_cast<std::uint32_t>(k);
  }
};

/// Hash: Knuth's multiplicative hash.  Spreads strided column sets (graphs
/// with regular structure) at the cost of locality.
struct HashMultiplicative {
  template <class Key>
  KOKKOS_FORCEINLINE_FUNCTION static std::uint32_t hash(Key k) noexcept {
    return static_cast<std::uint32_t>(k) * 2654435761u;
  }
};

/// Hash: MurmurHash3's 32-bit finalizer (fmix32), both halves of a 64-bit
/// key folded in.  Every key bit reaches the low bits the mask keeps, so
/// columns whose low bits are skewed do not pile into a few slots: in R-MAT
/// graphs each bit of a column is 0 with probability ~0.76, and rmat:18:8's
/// rows with 2^10-2^11-slot tables took 132 probes per product on average
/// with HashMask (1.8 with HashMix).
struct HashMix {
  template <class Key>
  KOKKOS_FORCEINLINE_FUNCTION static std::uint32_t hash(Key k) noexcept {
    const auto x = static_cast<std::uint64_t>(k);
    std::uint32_t h = static_cast<std::uint32_t>(x ^ (x >> 32));
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
  }
};

/// Probing: slot, slot + 1, slot + 2, ... (cache and bank friendly).
struct LinearProbing {
  KOKKOS_FORCEINLINE_FUNCTION static std::uint32_t next(std::uint32_t slot,
                                                        std::uint32_t /*attempt*/) noexcept {
    return slot + 1;
  }
};

/// Probing: slot + 1, slot + 3, slot + 6, ... (triangular numbers, visits every
/// slot of a power-of-two table; breaks up clusters of LinearProbing).
struct QuadraticProbing {
  KOKKOS_FORCEINLINE_FUNCTION static std::uint32_t next(std::uint32_t slot,
                                                        std::uint32_t attempt) noexcept {
    return slot + attempt + 1;
  }
};

/// Concurrency: several threads insert into the same table (atomics).
struct ConcurrentInsert {
  static constexpr bool atomic = true;
};
/// Concurrency: one thread owns the table (plain loads and stores).
struct ExclusiveInsert {
  static constexpr bool atomic = false;
};

/// An open-addressing hash map over caller-provided arrays.
///
/// - capacity must be a power of two and larger than the number of distinct
///   keys ever inserted (spk sizes tables from an upper bound, so probing
///   always ends);
/// - keys must be non-negative; the empty slot holds empty_key (all bits set),
///   which also sorts last as an unsigned value;
/// - values may be null (a set: insert() only);
/// - clear() / the caller must set keys to empty_key and values to zero
///   before first use.
/// Hash, Probing and Concurrency are the policies above.
template <class Key, class Value, class Hash = HashMask, class Probing = LinearProbing,
          class Concurrency = ConcurrentInsert>
class HashAccumulator {
 public:
  using key_type = Key;
  using value_type = Value;
  static constexpr Key empty_key = static_cast<Key>(~static_cast<std::make_unsigned_t<Key>>(0));

  KOKKOS_FUNCTION HashAccumulator() = default;
  /// Slot s lives at keys[s * stride] (and values[s * stride]): a stride
  /// interleaves the tables of threads that share scratch, so that their
  /// accesses fall into different banks.
  KOKKOS_FUNCTION HashAccumulator(Key* keys, Value* values, std::uint32_t capacity,
                                  std::uint32_t stride = 1) noexcept
      : keys_(keys), values_(values), mask_(capacity - 1), stride_(stride) {}

  /// Bytes of scratch a table of this capacity needs (keys, then values),
  /// values aligned for Value.
  KOKKOS_FUNCTION static constexpr std::size_t bytes(std::size_t capacity, bool with_values) {
    return keys_bytes(capacity) + (with_values ? capacity * sizeof(Value) : 0);
  }
  KOKKOS_FUNCTION static constexpr std::size_t keys_bytes(std::size_t capacity) {
    return (capacity * sizeof(Key) + alignof(Value) - 1) / alignof(Value) * alignof(Value);
  }

  KOKKOS_FORCEINLINE_FUNCTION std::uint32_t capacity() const noexcept { return mask_ + 1; }
  KOKKOS_FORCEINLINE_FUNCTION Key* keys() const noexcept { return keys_; }
  KOKKOS_FORCEINLINE_FUNCTION Value* values() const noexcept { return values_; }
  KOKKOS_FORCEINLINE_FUNCTION Key& key(std::uint32_t s) const noexcept {
    return keys_[s * stride_];
  }
  KOKKOS_FORCEINLINE_FUNCTION Value& value(std::uint32_t s) const noexcept {
    return values_[s * stride_];
  }

  /// Resets slot i (callers spread the slots over their threads).
  KOKKOS_FORCEINLINE_FUNCTION void clear(std::uint32_t i) const noexcept {
    key(i) = empty_key;
    if (values_) value(i) = Value(0);
  }

  /// Inserts k; returns its slot and sets is_new when this call added it.
  KOKKOS_FORCEINLINE_FUNCTION std::uint32_t insert(Key k, bool& is_new) const noexcept {
    std::uint32_t slot = Hash::hash(k) & mask_;
    for (std::uint32_t attempt = 0;; ++attempt) {
      Key cur = key(slot);
      if (cur == k) {
        is_new = false;
        return slot;
      }
      if (cur == empty_key) {
        if constexpr (Concurrency::atomic) {
          cur = Kokkos::atomic_compare_exchange(&key(slot), empty_key, k);
          if (cur == empty_key) {
            is_new = true;
            return slot;
          }
          if (cur == k) {
            is_new = false;
            return slot;
          }
        } else {
          key(slot) = k;
          is_new = true;
          return slot;
        }
      }
      slot = Probing::next(slot, attempt) & mask_;
    }
  }

  /// values[k] += v, inserting k when absent; returns whether k was new.
  KOKKOS_FORCEINLINE_FUNCTION bool accumulate(Key k, Value v) const noexcept {
    bool is_new;
    const std::uint32_t slot = insert(k, is_new);
    if constexpr (Concurrency::atomic)
      Impl::atomic_add_scalar(&value(slot), v);
    else
      value(slot) += v;
    return is_new;
  }

  /// Slot holding k, or capacity() when k is absent.
  KOKKOS_FORCEINLINE_FUNCTION std::uint32_t find(Key k) const noexcept {
    std::uint32_t slot = Hash::hash(k) & mask_;
    for (std::uint32_t attempt = 0; attempt <= mask_; ++attempt) {
      const Key cur = key(slot);
      if (cur == k) return slot;
      if (cur == empty_key) break;
      slot = Probing::next(slot, attempt) & mask_;
    }
    return mask_ + 1;
  }

 private:
  Key* keys_ = nullptr;
  Value* values_ = nullptr;
  std::uint32_t mask_ = 0;
  std::uint32_t stride_ = 1;
};

/// Smallest power of two >= n (n >= 1).
KOKKOS_INLINE_FUNCTION constexpr std::uint64_t next_pow2(std::uint64_t n) noexcept {
  std::uint64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

}  // namespace spk
