// PGM (P5) and PPM (P6): a text header "P5 width height maxval" with "# comment" lines anywhere
// between its tokens, exactly one whitespace byte, then the samples: one byte each for maxval up
// to 255, two big-endian bytes each above.
#include <cctype>
#include <string>

#include "image_codec.hpp"

namespace course::image_detail {

namespace {

// Walks the header of a PNM file held in memory.
class HeaderReader {
 public:
  HeaderReader(std::span<const unsigned char> bytes, std::vector<std::string>& comments)
      : bytes_(bytes), comments_(comments) {}

  // The next token, skipping whitespace and comment lines; empty at the end of the data. The one
  // whitespace byte that ends the token is consumed (after maxval, the samples follow at once).
  std::string next_token() {
    while (position_ < bytes_.size()) {
      const unsigned char c = bytes_[position_];
      if (c == '#') {
        read_comment();
      } else if (std::isspace(c)) {
        ++position_;
      } else {
        break;
      }
    }
    std::string token;
    while (position_ < bytes_.size() && !std::isspace(bytes_[position_]) && bytes_[position_] != '#') {
      token.push_back(static_cast<char>(bytes_[position_++]));
    }
    if (position_ < bytes_.size() && std::isspace(bytes_[position_])) ++position_;
    return token;
  }

  std::size_t position() const { return position_; }

 private:
  void read_comment() {
    ++position_;  // the '#'
    std::string line;
    while (position_ < bytes_.size() && bytes_[position_] != '\n') line.push_back(static_cast<char>(bytes_[position_++]));
    if (position_ < bytes_.size()) ++position_;  // the '\n'
    if (!line.empty() && line.front() == ' ') line.erase(0, 1);
    comments_.push_back(line);
  }

  std::span<const unsigned char> bytes_;
  std::vector<std::string>& comments_;
  std::size_t position_ = 0;
};

// A header number: decimal digits only, at most `max`.
long long parse_number(const std::string& path, const std::string& token, const char* what, long long max) {
  if (token.empty()) fail(path, std::string("truncated header (no ") + what + ")");
  long long value = 0;
  for (const char c : token) {
    if (c < '0' || c > '9') fail(path, std::string("bad ") + what + " '" + token + "' in the header");
    value = value * 10 + (c - '0');
    if (value > max) fail(path, std::string("absurd ") + what + " '" + token + "' in the header");
  }
  return value;
}

}  // namespace

Raster decode_pnm(const std::string& path, std::span<const unsigned char> bytes) {
  Raster raster;
  HeaderReader header(bytes, raster.comments);
  const std::string magic = header.next_token();
  if (magic != "P5" && magic != "P6") {
    fail(path, "not a PNG, binary PGM (P5) or binary PPM (P6) file (it starts with '" + magic.substr(0, 8) + "')");
  }
  raster.channels = magic == "P5" ? 1 : 3;
  // Beyond kMaxImageDimension is refused by check_dimensions; the bound here only keeps the
  // number from overflowing while it is parsed.
  const long long width = parse_number(path, header.next_token(), "width", 1LL << 40);
  const long long height = parse_number(path, header.next_token(), "height", 1LL << 40);
  check_dimensions(path, width, height);
  const long long maxval = parse_number(path, header.next_token(), "maxval", 65535);
  if (maxval == 0) fail(path, "maxval 0 in the header (it must be 1..65535)");
  raster.width = static_cast<int>(width);
  raster.height = static_cast<int>(height);
  raster.maxval = static_cast<std::uint32_t>(maxval);

  const std::size_t bytes_per_sample = maxval > 255 ? 2 : 1;
  const std::size_t count = static_cast<std::size_t>(width) * static_cast<std::size_t>(height) *
                            static_cast<std::size_t>(raster.channels);
  const std::size_t needed = count * bytes_per_sample;
  const std::size_t present = bytes.size() - header.position();
  if (present < needed) {
    fail(path, "truncated: " + std::to_string(present) + " of " + std::to_string(needed) + " pixel bytes present");
  }
  raster.samples.resize(count);
  const unsigned char* data = bytes.data() + header.position();
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t value =
        bytes_per_sample == 1 ? data[i] : (std::uint32_t{data[2 * i]} << 8) | std::uint32_t{data[2 * i + 1]};
    if (value > raster.maxval) {
      fail(path, "sample " + std::to_string(i) + " is " + std::to_string(value) + ", above maxval " +
                     std::to_string(raster.maxval));
    }
    raster.samples[i] = static_cast<std::uint16_t>(value);
  }
  return raster;
}

std::vector<unsigned char> encode_pnm(const Raster& raster, const std::string& comment) {
  std::string header = raster.channels == 1 ? "P5\n" : "P6\n";
  for (const std::string& line : split_lines(comment)) header += "# " + line + "\n";
  header += std::to_string(raster.width) + " " + std::to_string(raster.height) + "\n" +
            std::to_string(raster.maxval) + "\n";
  const bool wide = raster.maxval > 255;
  std::vector<unsigned char> bytes(header.begin(), header.end());
  bytes.reserve(header.size() + raster.samples.size() * (wide ? 2 : 1));
  for (const std::uint16_t sample : raster.samples) {
    if (wide) bytes.push_back(static_cast<unsigned char>(sample >> 8));
    bytes.push_back(static_cast<unsigned char>(sample & 0xFF));
  }
  return bytes;
}

}  // namespace course::image_detail
