// The order in which the sm90 kernels' persistent CTAs take output tiles: bands of tile rows,
// each walked along the other mode, with no padding of the tile grid.
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

}  // namespace bw::gemm
