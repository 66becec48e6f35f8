// The padded calls' copy kernel (pad_copy.cu): no torch headers, so nvcc compiles it in seconds.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace bw::ops {

// Writes every element of dst (dst_rows x dst_cols elements, row pitch dst_pitch bytes): the
// element of src (rows x cols, pitch src_pitch bytes) at the same place, or zero outside it, on
// `stream`. Any element-aligned addresses and pitches; elem_bytes 1, 2, 4 or 8.
cudaError_t copy_rows_zero_fill(void* dst, int64_t dst_pitch, int64_t dst_cols, int64_t dst_rows,
                                const void* src, int64_t src_pitch, int64_t cols, int64_t rows,
                                int elem_bytes, cudaStream_t stream);

}  // namespace bw::ops
