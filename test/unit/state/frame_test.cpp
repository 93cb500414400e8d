// The checksum and the framing of the state files: what a crash leaves (torn) against what a disk
// does later (corrupt).

#include <boost/test/unit_test.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "state/crc32c.hpp"
#include "state/frame.hpp"

namespace {

using namespace shoal::state;

std::vector<uint8_t> file_of(size_t frames) {
  std::vector<uint8_t> out;
  append_magic(out, journal_magic);
  for (size_t i = 0; i < frames; ++i) {
    std::vector<uint8_t> payload(64, static_cast<uint8_t>(i + 1));
    append_frame(out, frame_kind::journal_batch, payload.data(), payload.size());
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(frame)

BOOST_AUTO_TEST_CASE(crc32c_matches_the_castagnoli_check_value) {
  const char* check = "123456789";
  BOOST_TEST(crc32c(check, 9) == 0xE3069283u);
  BOOST_TEST(crc32c(check, 0) == 0u);
  // Continuing from a prefix's CRC gives the CRC of the whole.
  BOOST_TEST(crc32c(check + 4, 5, crc32c(check, 4)) == 0xE3069283u);
  std::vector<uint8_t> zeros(32, 0);
  BOOST_TEST(crc32c(zeros.data(), zeros.size()) == 0x8A9136AAu);
}

BOOST_AUTO_TEST_CASE(intact_frames_scan_whole) {
  auto f = file_of(3);
  auto scan = scan_frames(f.data(), f.size(), journal_magic);
  BOOST_TEST(scan.frames.size() == 3u);
  BOOST_CHECK(scan.damage == damage_kind::none);
  BOOST_TEST(scan.valid_end == f.size());
  BOOST_TEST(scan.frames[1].offset == magic_size + frame_header_size + 64);
  BOOST_TEST(scan.frames[2].payload[0] == 3);
}

BOOST_AUTO_TEST_CASE(a_last_frame_cut_short_is_torn) {
  auto f = file_of(3);
  for (size_t cut : {size_t{5}, frame_header_size + 10}) {
    auto g = f;
    g.resize(magic_size + 2 * (frame_header_size + 64) + cut);
    auto scan = scan_frames(g.data(), g.size(), journal_magic);
    BOOST_TEST(scan.frames.size() == 2u);
    BOOST_CHECK(scan.damage == damage_kind::torn);
    BOOST_TEST(scan.damage_offset == magic_size + 2 * (frame_header_size + 64));
  }
}

BOOST_AUTO_TEST_CASE(zeros_from_a_frame_boundary_on_are_the_room_left_for_batches) {
  auto f = file_of(2);
  auto end = f.size();
  f.resize(f.size() + 4096, 0);
  auto scan = scan_frames(f.data(), f.size(), journal_magic);
  BOOST_TEST(scan.frames.size() == 2u);
  BOOST_CHECK(scan.damage == damage_kind::none);
  BOOST_TEST(scan.valid_end == end);
}

BOOST_AUTO_TEST_CASE(zeros_with_data_after_them_are_corrupt) {
  auto f = file_of(2);
  auto end = f.size();
  f.resize(f.size() + 4096, 0);
  f.back() = 1;
  auto scan = scan_frames(f.data(), f.size(), journal_magic);
  BOOST_TEST(scan.frames.size() == 2u);
  BOOST_CHECK(scan.damage == damage_kind::corrupt);
  BOOST_TEST(scan.damage_offset == end);
}

BOOST_AUTO_TEST_CASE(a_flipped_byte_with_frames_after_it_is_corrupt) {
  auto f = file_of(3);
  size_t second = magic_size + frame_header_size + 64;
  for (size_t at : {second + 2, second + frame_header_size + 7}) {
    auto g = f;
    g[at] ^= 0x01;
    auto scan = scan_frames(g.data(), g.size(), journal_magic);
    BOOST_TEST(scan.frames.size() == 1u);
    BOOST_CHECK(scan.damage == damage_kind::corrupt);
    BOOST_TEST(scan.damage_offset == second);
    BOOST_TEST(describe_damage(scan).find("at byte " + std::to_string(second)) !=
               std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(a_flipped_byte_in_the_last_frame_is_torn) {
  auto f = file_of(3);
  f[f.size() - 3] ^= 0x01;
  auto scan = scan_frames(f.data(), f.size(), journal_magic);
  BOOST_TEST(scan.frames.size() == 2u);
  BOOST_CHECK(scan.damage == damage_kind::torn);
  BOOST_TEST(scan.problem == "checksum mismatch");
}

BOOST_AUTO_TEST_CASE(a_wrong_magic_is_damage_at_byte_zero) {
  auto f = file_of(1);
  std::memcpy(f.data(), "SHOALSNP", 8);
  auto scan = scan_frames(f.data(), f.size(), journal_magic);
  BOOST_TEST(scan.frames.empty());
  BOOST_CHECK(scan.damage == damage_kind::corrupt);
  BOOST_TEST(scan.damage_offset == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
