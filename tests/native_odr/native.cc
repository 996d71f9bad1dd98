#include <vector>
int native_sum(const std::vector<int>& v) {
  std::vector<int> copy = v;
  copy.push_back(0);
  int sum = 0;
  for (int x : copy)
    sum += x;
  return sum;
}
