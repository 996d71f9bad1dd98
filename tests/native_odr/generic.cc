#include <vector>
int native_sum(const std::vector<int>& v);
int main() {
  std::vector<int> v;
  for (int i = 0; i < 10; ++i)
    v.push_back(i);
  return native_sum(v) == 45 ? 0 : 1;
}
