#pragma once
// A fixed-size array of all-zero elements whose memory is committed page by page as it is
// first touched (a pool of many replicas' worth of KV blocks costs nothing until
// they are used). Large arrays are mapped anonymously, which the kernel hands out as zero
// pages on first touch; small ones come from calloc. Why not std::vector with reserve():
// a vector must construct each element before use, which writes (and so commits) it, and
// malloc may serve a large request from memory it has to clear first.
//
// Huge pages (PageSize::huge) suit an array that is touched all over, such as a hash
// table: a large mapped one is backed by 2 MiB pages where the kernel allows it
// (transparent huge pages on request, madvise), so filling it faults once per 2 MiB
// instead of once per 4 KiB and its random accesses miss the TLB far less. An array
// filled from the front costs at most one huge page more than it uses.
// REQUIRES of T: an implicit-lifetime type whose all-zero bytes are its default value.
#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>

namespace servesim {

enum class PageSize { base, huge };

template <typename T>
class ZeroedArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "ZeroedArray holds plain records");

 public:
  ZeroedArray() = default;
  explicit ZeroedArray(std::size_t n, PageSize pages = PageSize::base)
      : size_(n), mapped_(n * sizeof(T) >= kMapBytes) {
    if (n == 0) return;
    if (mapped_) {
      void* p = ::mmap(nullptr, bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
      data_ = static_cast<T*>(p);
#ifdef MADV_HUGEPAGE
      // A request: where the kernel has no huge pages to give, base pages serve as before.
      if (pages == PageSize::huge && bytes() >= kHugePageBytes) ::madvise(p, bytes(), MADV_HUGEPAGE);
#endif
    } else {
      data_ = static_cast<T*>(std::calloc(n, sizeof(T)));
      if (data_ == nullptr) throw std::bad_alloc();
    }
  }
  ZeroedArray(const ZeroedArray&) = delete;
  ZeroedArray& operator=(const ZeroedArray&) = delete;
  ZeroedArray(ZeroedArray&& other) noexcept { swap(other); }
  ZeroedArray& operator=(ZeroedArray&& other) noexcept {
    ZeroedArray gone(std::move(*this));
    swap(other);
    return *this;
  }
  ~ZeroedArray() { release(); }

  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }

 private:
  // At and above this, mapped: below it a page or two of calloc costs as little.
  static constexpr std::size_t kMapBytes = std::size_t{64} << 10;
  static constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
  std::size_t bytes() const { return size_ * sizeof(T); }
  void swap(ZeroedArray& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(mapped_, other.mapped_);
  }
  void release() noexcept {
    if (data_ == nullptr) return;
    if (mapped_) ::munmap(data_, bytes());
    else std::free(data_);
    data_ = nullptr;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  bool mapped_ = false;
};

}  // namespace servesim
