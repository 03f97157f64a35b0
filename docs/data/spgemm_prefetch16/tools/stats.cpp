#include <Kokkos_Core.hpp>
#include <cstdio>
#include <set>
#include <spk.hpp>
#include <vector>
int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    for (int a = 1; a < argc; ++a) {
      auto A = spk::load_csr<double, int, int>(argv[a]);
      auto B = A.num_rows() == A.num_cols() ? A : spk::transpose(A);
      auto arm = A.row_map();
      auto aci = A.col_idx();
      auto brm = B.row_map();
      auto bci = B.col_idx();
      long n = B.num_cols(), nw = (n + 63) / 64, ns = (nw + 63) / 64;
      std::vector<char> mark(nw, 0), cm(n, 0);
      long bucket[6] = {0};
      long words_total = 0, ent_total = 0;
      long rows = A.num_rows();
      long sum_by[6] = {0};
      for (long i = 0; i < rows; ++i) {
        std::vector<int> t, cols;
        for (int ka = arm(i); ka < arm(i + 1); ++ka) {
          int k = aci(ka);
          for (int kb = brm(k); kb < brm(k + 1); ++kb) {
            int c = bci(kb);
            if (!cm[c]) {
              cm[c] = 1;
              cols.push_back(c);
            }
            int w = c >> 6;
            if (!mark[w]) {
              mark[w] = 1;
              t.push_back(w);
            }
          }
        }
        for (int w : t) mark[w] = 0;
        for (int c : cols) cm[c] = 0;
        long nt = t.size();
        words_total += nt;
        ent_total += cols.size();
        int bi = nt == 0 ? 0 : nt <= 16 ? 1 : nt <= 32 ? 2 : nt <= 64 ? 3 : nt <= 128 ? 4 : 5;
        bucket[bi]++;
        sum_by[bi] += cols.size();
      }
      std::printf(
          "%-28s rows %8ld nw %6ld ns %4ld  avg nt %6.1f avg ent %6.1f | rows%%: 0:%4.1f "
          "<=16:%5.1f <=32:%5.1f <=64:%5.1f <=128:%5.1f >128:%5.1f | ent%%: %5.1f %5.1f %5.1f "
          "%5.1f %5.1f\n",
          argv[a], rows, nw, ns, double(words_total) / rows, double(ent_total) / rows,
          100.0 * bucket[0] / rows, 100.0 * bucket[1] / rows, 100.0 * bucket[2] / rows,
          100.0 * bucket[3] / rows, 100.0 * bucket[4] / rows, 100.0 * bucket[5] / rows,
          100.0 * sum_by[1] / ent_total, 100.0 * sum_by[2] / ent_total,
          100.0 * sum_by[3] / ent_total, 100.0 * sum_by[4] / ent_total,
          100.0 * sum_by[5] / ent_total);
    }
  }
  Kokkos::finalize();
}
