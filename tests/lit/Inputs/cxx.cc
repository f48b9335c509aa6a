// cxx.cc - C++ names for the report to demangle: a member function and
// two instances of a function template, with exact counts.
#include <cstdio>
namespace calc {
template <typename T> __attribute__((noinline)) T twice(T x) { return x + x; }
struct Acc { long v = 0; __attribute__((noinline)) void add(long x) { v += x; } };
}
int main() {
  calc::Acc a;
  for (int i = 0; i < 6; i++) a.add(calc::twice<long>(i));
  for (int i = 0; i < 2; i++) a.add((long)calc::twice<double>(i));
  std::printf("%ld\n", a.v);
}
