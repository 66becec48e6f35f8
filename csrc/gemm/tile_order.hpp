// The order in which the sm90 kernels' persistent CTAs take output tiles: bands of tile rows,
// each walked along the other mode, with no padding of the tile grid; and (TailSplit, below) how
// the tail-split scheduler cuts the last wave's tiles along K.
//
// Why bands: a wave of clusters that covers a band of `band` cluster rows reads one slab of the
// other operand for all of them, so the operands are read from DRAM about once, not once a wave
// (docs/design.md, "tile order"). CUTLASS's persistent scheduler does this with its swizzle, but
// first rounds both tile counts up to multiples of swizzle x cluster, and the padded tiles are
// computed like real ones (out of bounds, so nothing is stored): at 8448x8192x8192 on 128x256
// FP8 tiles swizzle 2 pads 2112 tiles (exactly 16 waves of 132 SMs) to 2176 (17 waves), and
// swizzle 8 to 2560. Here the last band simply has fewer rows, so every linear index names a
// real tile, and the tiles stay spread evenly over the CTAs.
//
// Plain integers, so that the host (tests, _C.sm90_band_order) runs the same code as the kernel;
// the kernel instantiates it with cutlass::FastDivmodU64, the host with PlainDivmod.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define BW_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define BW_HOST_DEVICE inline
#endif

namespace bw::gemm {

// Same call form as cutlass::FastDivmodU64: (quotient, remainder, dividend).
struct PlainDivmod {
  uint64_t divisor = 1;
  PlainDivmod() = default;
  explicit PlainDivmod(uint64_t d) : divisor(d) {}
  BW_HOST_DEVICE void operator()(uint64_t& q, uint64_t& r, uint64_t x) const {
    q = x / divisor;
    r = x % divisor;
  }
};

// Over a grid of clusters_minor x clusters_major clusters, maps a cluster's linear index
// (0 .. clusters_minor * clusters_major - 1) to its (minor, major) coordinates, one to one:
// consecutive indices run down the `band` rows of a band, then along major to the next column of
// that band; bands follow each other along minor, the last one holding what is left.
template <class Divmod>
struct BandOrder {
  uint32_t log_band = 0;        // rows (clusters along minor) in a full band: 1 << log_band
  uint64_t full_end = 0;        // clusters in all full bands together
  uint64_t last_row = 0;        // the last band's first row
  Divmod per_band;              // divisor: clusters in a full band (band x clusters_major)
  Divmod per_last_column;       // divisor: rows in the last band (1 when every band is full)

  // band_limit: the widest band wanted (a power of two); it is cut to clusters_minor.
  static BandOrder make(uint64_t clusters_minor, uint64_t clusters_major, int band_limit) {
    BandOrder o;
    while ((uint64_t{2} << o.log_band) <= clusters_minor &&
           (int64_t{2} << o.log_band) <= band_limit) {
      ++o.log_band;
    }
    const uint64_t band = uint64_t{1} << o.log_band;
    const uint64_t full_bands = clusters_minor >> o.log_band;
    const uint64_t last_rows = clusters_minor - full_bands * band;
    o.full_end = full_bands * band * clusters_major;
    o.last_row = full_bands * band;
    o.per_band = Divmod(band * clusters_major);
    o.per_last_column = Divmod(last_rows ? last_rows : 1);
    return o;
  }

  BW_HOST_DEVICE void coord(uint64_t cluster, uint64_t& minor, uint64_t& major) const {
    if (cluster < full_end) {
      uint64_t band_idx, in_band;
      per_band(band_idx, in_band, cluster);
      major = in_band >> log_band;
      minor = (band_idx << log_band) + (in_band & ((uint64_t{1} << log_band) - 1));
    } else {
      uint64_t row;
      per_last_column(major, row, cluster - full_end);
      minor = last_row + row;
    }
  }
};

// The sm90 tail-split scheduler (gemm/sm90/tile_scheduler.hpp): the last wave split along K.
//
// Why: a persistent kernel whose tiles are not a multiple of its clusters leaves clusters idle in
// the last wave. At 1536x4096x8192 on 128x256 FP8 tiles, 96 cluster tiles on 66 clusters: 30
// clusters take a second tile while 36 wait, and the product takes two tile times for 1.45
// tiles' work. It matters where the waves are few (kMaxWholeWaves below).
//
// What: the clusters first take the tiles of the full waves whole, in the band order. The
// `split_tiles` left over (fewer than the clusters) are cut along K into `splits` equal ranges,
// and the units are dealt out round-robin in k-major order: unit u = range * split_tiles + tile
// goes to cluster u % clusters, in its (u / clusters)-th round. So the clusters of a round work
// on at most two k-ranges, and tiles that share an operand panel read the same k-slices of it at
// about the same time, as in the whole-tile waves. A first version gave each cluster a
// contiguous run of the split tiles' k-tiles instead (as stream-K does), so that every cluster
// read the panels at its own k-offset; it gained 3-7% where this one gains 10-15%, and lost up
// to 6% where this one does not split (docs/results/h200-session17/; the L2 not sharing the
// panels is our reading of that, not measured). The last range of a tile reduces it: it waits
// for the earlier ranges' partial sums in the workspace, adds them in range order (the same
// bits on every run), and runs the epilogue. Deadlock-free: a unit waits only for units of
// smaller index, and every cluster takes its units in increasing index (all CTAs of the
// persistent grid are resident).
struct TailSplit {
  uint32_t clusters = 0;     // G: clusters in the launch grid
  uint32_t k_tiles = 0;      // k-tiles per tile
  uint64_t whole = 0;        // cluster tiles taken whole, data-parallel (the first in the order)
  uint64_t whole_waves = 0;  // whole / clusters (whole is a multiple of clusters when split)
  uint32_t split_tiles = 0;  // the tiles after them, each cut into `splits` k-ranges
  uint32_t splits = 1;       // 1: nothing is split

  // The cost model, in k-tiles of one cluster's MMAs: rounds of units, each a k-range plus its
  // share of the partial sums' traffic (an fp32 tile written or read, estimated at 1.5 k-tiles
  // on 128x256 FP8: 128 KiB), against one more whole tile; the split is taken where it saves at
  // least an eighth of a tile (and 4 k-tiles), with at least kMinRange k-tiles a range and at
  // most kMaxSplits ranges a tile. An estimate, which the measurements in docs/design.md check.
  static constexpr uint32_t kMinSaving = 4, kMinRange = 2, kMaxSplits = 16;
  // Only after at most this many whole waves. Measured on the H200 (FP8 128x256, side by side
  // with the same kernel unsplit, docs/results/h200-session17/): after 1 and 2 whole waves
  // (1536x4096x8192, 2560x4096x8192) the split took 13-14% and 9% less time; after 15 and 27
  // (8192^3, 8192x14336x4096) it saved nothing or lost 1.5%: a long product runs at the power
  // limit, where time follows energy, and an idle tail costs little energy.
  static constexpr uint64_t kMaxWholeWaves = 3;
  // At most this many rounds of units. Splits that took three rounds lost to the same kernel
  // unsplit, though this model had them saving 10-20% (H200, docs/results/h200-session30/
  // time_run123.txt, FP8 128x128 1x2, 4 ranges): below a wave, 384 x 4096 x 14336 (48 cluster
  // tiles) 59.4 against 46.3 us; after one, 896 x 4096 x 14336 (46 tiles after 66) 99.5 against
  // 89.6; and on an H100, 640 x 4096 x 14336 on 128x256 (48 tiles) 98.2 us, against 56.4 for
  // _scaled_mm and 67.1-76.5 for the other kernels on the H200 (docs/results/session31/). Splits
  // of one round won: 256 x 4096 x 14336 on 128x128 2x1 (32 tiles in 2 ranges) 33.6 against 42.2;
  // 640 / 1152 x 4096 x 14336 on 1x2 (14 / 12 tiles after whole waves) 67.1 / 109.5 against 86.3 /
  // 128.1; session 17's 1536 / 2560 x 4096 x 8192 above. Two rounds: not measured either way.
  static constexpr uint64_t kMaxRounds = 2;

  // The model's rounds and time of `rest` tiles (fewer than the clusters) cut into n ranges.
  BW_HOST_DEVICE static uint64_t rounds_of(uint64_t rest, uint32_t n, uint32_t clusters) {
    return (rest * n + clusters - 1) / clusters;
  }
  BW_HOST_DEVICE static uint64_t split_time(uint64_t rest, uint32_t n, uint32_t clusters,
                                            uint32_t k_tiles) {
    return rounds_of(rest, n, clusters) * ((k_tiles + n - 1) / n) + (3 * n + 1) / 2;
  }

  // tiles: cluster tiles of the problem (every batch); clusters: the launch grid's.
  static TailSplit make(uint64_t tiles, uint32_t clusters, uint32_t k_tiles, bool enable) {
    TailSplit s;
    s.clusters = clusters;
    s.k_tiles = k_tiles;
    s.whole = tiles;
    // Below a wave (tiles < clusters) every tile is "left over": with no whole waves the split
    // is a split-K that spreads a few deep tiles over the idle clusters (e.g. FP8 decode,
    // 16x4096x14336: 16 cluster tiles of 128x128 on 66 clusters, in 4 k-ranges).
    if (!enable || clusters == 0 || tiles == 0) return s;
    const uint64_t rest = tiles % clusters;
    if (rest == 0 || tiles / clusters > kMaxWholeWaves) return s;
    uint32_t best = 1;
    uint64_t best_cost = 0;
    for (uint32_t n = 2; n <= kMaxSplits && k_tiles / n >= kMinRange; ++n) {
      if (rounds_of(rest, n, clusters) > kMaxRounds) break;  // rounds grow with n
      const uint64_t cost = split_time(rest, n, clusters, k_tiles);
      if (best == 1 || cost < best_cost) {
        best = n;
        best_cost = cost;
      }
    }
    // against the whole tile in a last wave of its own
    const uint64_t saving = k_tiles / 8 > kMinSaving ? k_tiles / 8 : kMinSaving;
    if (best == 1 || best_cost + saving > k_tiles) return s;
    s.whole = tiles - rest;
    s.whole_waves = s.whole / clusters;
    s.split_tiles = static_cast<uint32_t>(rest);
    s.splits = best;
    return s;
  }

  BW_HOST_DEVICE bool active() const { return splits > 1; }
  // The model's time for the whole grid, in k-tiles of one cluster's MMAs: the whole waves and
  // then the split rounds, or, unsplit, every wave of whole tiles (the last one partial).
  BW_HOST_DEVICE uint64_t k_tile_time() const {
    if (clusters == 0) return 0;
    if (!active()) return (whole + clusters - 1) / clusters * k_tiles;
    return whole_waves * k_tiles + split_time(split_tiles, splits, clusters, k_tiles);
  }
  BW_HOST_DEVICE uint64_t units() const { return uint64_t{split_tiles} * splits; }
  // Workspace slots for partial sums: one per unit but the reducing ones, (range, tile) order.
  BW_HOST_DEVICE uint64_t partial_slots() const { return uint64_t{split_tiles} * (splits - 1); }

  struct Piece {
    bool valid = false;
    uint64_t tile = 0;      // cluster tile, in the order (whole + index among the split tiles)
    uint32_t k_begin = 0;   // k-tiles [k_begin, k_end) of the tile
    uint32_t k_end = 0;
    bool partial = false;   // writes its partial sum to slot `slot`
    uint32_t peers = 0;     // reducing: the partial sums to add, in slots slot, slot +
                            // split_tiles, ... (splits - 1 of them)
    uint64_t slot = 0;
  };

  // The j-th unit of cluster g after its whole tiles.
  BW_HOST_DEVICE Piece piece(uint64_t g, uint64_t j) const {
    Piece p;
    const uint64_t u = g + j * clusters;
    if (!active() || u >= units()) return p;
    const uint64_t range = u / split_tiles, t = u - range * split_tiles;
    p.valid = true;
    p.tile = whole + t;
    p.k_begin = static_cast<uint32_t>(range * k_tiles / splits);
    p.k_end = static_cast<uint32_t>((range + 1) * k_tiles / splits);
    p.partial = range + 1 < splits;
    p.peers = p.partial ? 0u : splits - 1;
    p.slot = p.partial ? u : t;
    return p;
  }
};

}  // namespace bw::gemm
