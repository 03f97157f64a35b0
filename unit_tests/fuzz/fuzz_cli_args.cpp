// libFuzzer target: the spk tool's command-line parsing (tools/
// spk_cli_args.hpp), without running anything.
//
// Input: arguments separated by NUL bytes; the first picks the parser
// (spmv, spgemm, info, convert, --repeat's integer parser or --precision's
// value).  Oracles: a refusal is a
// UsageError with a message (exit code 2 in the tool); an accepted command
// line satisfies what the command then relies on.
#include <spk_cli_args.hpp>
#include <spk_fuzz_common.hpp>

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spk_fuzz::initialize_kokkos();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  std::vector<std::string> args;
  const std::string_view in = spk_fuzz::as_text(data, size);
  for (size_t b = 0; b <= in.size();) {
    const size_t e = std::min(in.find('\0', b), in.size());
    args.emplace_back(in.substr(b, e - b));
    b = e + 1;
  }
  const std::string which = args.front();
  args.erase(args.begin());
  try {
    if (which == "spgemm") {
      const auto s = spk::cli::parse_spgemm_args(args);
      SPK_FUZZ_CHECK(s.inputs.size() == 2 && !s.out.empty() && !(s.check && s.unsorted),
                     "spgemm arguments accepted inconsistently");
    } else if (which == "info") {
      const auto s = spk::cli::parse_info_args(args);
      SPK_FUZZ_CHECK(!s.path.empty(), "info accepted without a matrix");
    } else if (which == "convert") {
      const auto s = spk::cli::parse_convert_args(args);
      SPK_FUZZ_CHECK(!s.in.empty() && !s.out.empty(), "convert accepted without two files");
    } else if (which == "precision") {
      const std::string value = args.empty() ? std::string() : args.front();
      const auto p = spk::cli::parse_precision(value);
      SPK_FUZZ_CHECK(value == spk::cli::to_string(p), "'%s' parsed as %s", value.c_str(),
                     spk::cli::to_string(p));
    } else if (which == "repeat") {
      const std::string value = args.empty() ? std::string() : args.front();
      const int n = spk::cli::parse_positive_int("--repeat", value);
      SPK_FUZZ_CHECK(n >= 1 && std::stoll(value) == n, "'%s' parsed as %d", value.c_str(), n);
    } else {
      const auto s = spk::cli::parse_spmv_args(args);
      SPK_FUZZ_CHECK(!s.a_path.empty() && !s.y_path.empty() && s.repeat >= 1,
                     "spmv arguments accepted inconsistently");
    }
  } catch (const spk::cli::UsageError& e) {
    SPK_FUZZ_CHECK(std::string(e.what()).size() > 10, "terse usage error '%s'", e.what());
  }
  return 0;
}
