// The checkpoint store (include/spate/state/checkpoint_store.hpp): file formats, durable
// writes, checks on restore, retirement.
#include "spate/state/checkpoint_store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "spate/log/log.hpp"
#include "spate/state/codec.hpp"

namespace spate::state {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view manifest_magic = "SPATECKP";
constexpr std::string_view part_magic = "SPATEPRT";
constexpr std::string_view manifest_name = "MANIFEST";
constexpr std::string_view manifest_tmp_name = "MANIFEST.tmp";
constexpr std::string_view directory_prefix = "chk-";

// `error` is errno, read by the caller before anything else can change it.
[[noreturn]] void throw_os_error(int error, const std::string& what, const fs::path& path) {
  throw std::system_error(error, std::generic_category(),
                          "spate::state: " + what + " " + path.string());
}

std::uint32_t crc32_of(std::string_view bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths: feed it in pieces below 4 GiB.
  constexpr std::size_t piece = std::size_t{1} << 30;
  for (std::size_t at = 0; at < bytes.size(); at += piece) {
    const std::size_t n = std::min(piece, bytes.size() - at);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + at), static_cast<uInt>(n));
  }
  return static_cast<std::uint32_t>(crc);
}

void append_checksum(std::string& bytes) {
  const std::uint32_t crc = crc32_of(bytes);
  bytes.append(reinterpret_cast<const char*>(&crc), sizeof crc);
}

// The checksum a file ends with, and whether it matches the bytes before it.
bool checksum_matches(std::string_view file, std::uint32_t& stored) {
  if (file.size() < sizeof stored) return false;
  std::memcpy(&stored, file.data() + file.size() - sizeof stored, sizeof stored);
  return crc32_of(file.substr(0, file.size() - sizeof stored)) == stored;
}

// A file descriptor that closes itself.
class file {
 public:
  file(const fs::path& path, int flags, const char* what) : path_(path) {
    do {
      fd_ = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
    } while (fd_ < 0 && errno == EINTR);
    if (fd_ < 0) {
      const int error = errno;
      throw_os_error(error, what, path);
    }
  }
  file(const file&) = delete;
  file& operator=(const file&) = delete;
  ~file() {
    if (fd_ >= 0) ::close(fd_);
  }
  void write_all(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n < 0) {
        const int error = errno;
        if (error == EINTR) continue;
        throw_os_error(error, "writing", path_);
      }
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  void sync() {
    if (::fsync(fd_) != 0) {
      const int error = errno;
      throw_os_error(error, "syncing", path_);
    }
  }
  // Closes, reporting a deferred write error (NFS and some file systems report them here).
  void close() {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) {
      const int error = errno;
      if (error != EINTR) throw_os_error(error, "closing", path_);
    }
  }

 private:
  fs::path path_;
  int fd_ = -1;
};

void write_durably(const fs::path& path, std::string_view bytes) {
  file f(path, O_WRONLY | O_CREAT | O_TRUNC, "creating");
  f.write_all(bytes);
  f.sync();
  f.close();
}

void sync_directory(const fs::path& dir) {
  file d(dir, O_RDONLY | O_DIRECTORY, "opening directory");
  d.sync();
  d.close();
}

// The whole file, or nullopt with `error` set (errno) when it cannot be read.
std::optional<std::string> read_file(const fs::path& path, int& error) {
  int fd = -1;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    error = errno;
    return std::nullopt;
  }
  std::string out;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      error = errno;
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

std::string directory_name(std::uint64_t id) {
  char digits[32];
  std::snprintf(digits, sizeof digits, "%06llu", static_cast<unsigned long long>(id));
  return std::string(directory_prefix) + digits;
}

// The id of a directory named chk-<digits>, or none.
std::optional<std::uint64_t> id_of(const fs::path& dir) {
  const std::string name = dir.filename().string();
  if (name.size() <= directory_prefix.size() || !name.starts_with(directory_prefix)) return {};
  std::uint64_t id = 0;
  const char* first = name.data() + directory_prefix.size();
  const char* last = name.data() + name.size();
  const auto [end, error] = std::from_chars(first, last, id);
  if (error != std::errc() || end != last) return {};
  return id;
}

std::string part_file_name(std::string_view part) {
  std::string name = "part-";
  name += part;
  name += ".bin";
  return name;
}

void check_part_name(std::string_view name) {
  const bool bad = name.empty() || name.find('/') != std::string_view::npos ||
                   name.find('\0') != std::string_view::npos || name == "." || name == "..";
  if (bad) {
    throw std::invalid_argument("spate::state: '" + std::string(name) +
                                "' cannot name a checkpoint part (empty, or a '/' or NUL in it)");
  }
}

std::string encode_manifest(const checkpoint_manifest& m) {
  std::string bytes(manifest_magic);
  byte_writer out(bytes);
  encode(checkpoint_store::format_version, out);
  encode(m.id, out);
  encode(m.created_ms, out);
  encode(m.fingerprint, out);
  encode(m.key_groups, out);
  out.write_varint(m.parts.size());
  for (const auto& p : m.parts) {
    encode(p.name, out);
    encode(p.file_size, out);
    encode(p.checksum, out);
  }
  encode(m.extras, out);
  append_checksum(bytes);
  return bytes;
}

// Checks and decodes a MANIFEST file; a problem (without the file's name) when it fails.
std::optional<checkpoint_manifest> decode_manifest(std::string_view file, std::string& problem) {
  if (file.size() < manifest_magic.size() + sizeof(std::uint32_t) * 2 ||
      file.substr(0, manifest_magic.size()) != manifest_magic) {
    problem = "not a spate checkpoint manifest (" + std::to_string(file.size()) + " bytes)";
    return std::nullopt;
  }
  std::uint32_t version = 0;
  std::memcpy(&version, file.data() + manifest_magic.size(), sizeof version);
  if (version != checkpoint_store::format_version) {
    problem = "format " + std::to_string(version) + ", this build reads " +
              std::to_string(checkpoint_store::format_version);
    return std::nullopt;
  }
  std::uint32_t stored = 0;
  if (!checksum_matches(file, stored)) {
    problem = "checksum mismatch (truncated or corrupt)";
    return std::nullopt;
  }
  try {
    byte_reader in(
        file.substr(manifest_magic.size() + sizeof version,
                    file.size() - manifest_magic.size() - sizeof version - sizeof stored));
    checkpoint_manifest m;
    m.id = decode<std::uint64_t>(in);
    m.created_ms = decode<std::int64_t>(in);
    m.fingerprint = decode<std::string>(in);
    m.key_groups = decode<std::uint32_t>(in);
    const std::size_t parts = in.read_count("the part count");
    for (std::size_t i = 0; i < parts; ++i) {
      checkpoint_part p;
      p.name = decode<std::string>(in);
      p.file_size = decode<std::uint64_t>(in);
      p.checksum = decode<std::uint32_t>(in);
      m.parts.push_back(std::move(p));
    }
    m.extras = decode<std::map<std::string, std::string>>(in);
    if (in.left() != 0) {
      problem = std::to_string(in.left()) + " bytes left over";
      return std::nullopt;
    }
    return m;
  } catch (const decode_error& e) {
    problem = e.what();
    return std::nullopt;
  }
}

std::string part_header(std::uint64_t id, std::string_view name) {
  std::string bytes(part_magic);
  byte_writer out(bytes);
  encode(checkpoint_store::format_version, out);
  encode(id, out);
  encode(std::string(name), out);
  return bytes;
}

// Checks a part file against its manifest entry; a problem (without the file's name).
bool check_part(std::string_view file, const checkpoint_part& entry, std::uint64_t id,
                std::string& problem) {
  if (file.size() != entry.file_size) {
    problem = (file.size() < entry.file_size ? "truncated, " : "too long, ") +
              std::to_string(file.size()) + " of " + std::to_string(entry.file_size) + " bytes";
    return false;
  }
  const std::string header = part_header(id, entry.name);
  if (file.size() < header.size() + sizeof(std::uint32_t) ||
      file.substr(0, header.size()) != header) {
    problem = "its header does not name checkpoint " + std::to_string(id) + " and part '" +
              entry.name + "' in format " + std::to_string(checkpoint_store::format_version);
    return false;
  }
  std::uint32_t stored = 0;
  if (!checksum_matches(file, stored) || stored != entry.checksum) {
    problem = "checksum mismatch (corrupt)";
    return false;
  }
  return true;
}

}  // namespace

bool checkpoint_store::holds_checkpoints(const fs::path& directory) {
  if (!fs::exists(directory)) return false;
  for (const auto& entry : fs::directory_iterator(directory)) {
    // Complete only: opening a store there deletes the others.
    if (entry.is_directory() && id_of(entry.path()) &&
        fs::exists(entry.path() / std::string(manifest_name))) {
      return true;
    }
  }
  return false;
}

checkpoint_store::checkpoint_store(checkpoint_store_options options)
    : options_(std::move(options)) {
  if (options_.directory.empty()) {
    throw std::invalid_argument("spate::state: a checkpoint store needs a directory");
  }
  if (options_.retain == 0) {
    throw std::invalid_argument("spate::state: a checkpoint store must retain at least 1");
  }
  std::error_code ec;
  fs::create_directories(options_.directory, ec);
  if (ec) throw_os_error(ec.value(), "creating directory", options_.directory);
  const fs::path lock = options_.directory / "LOCK";
  do {
    lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  } while (lock_fd_ < 0 && errno == EINTR);
  if (lock_fd_ < 0) {
    const int error = errno;
    throw_os_error(error, "creating", lock);
  }
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    ::close(lock_fd_);
    throw_os_error(
        error,
        error == EWOULDBLOCK ? "another checkpoint store has the directory open:" : "locking",
        lock);
  }
  try {
    for (const auto& entry : fs::directory_iterator(options_.directory)) {
      if (!entry.is_directory() || !id_of(entry.path())) continue;
      fs::remove(entry.path() / manifest_tmp_name, ec);
      if (!fs::exists(entry.path() / manifest_name)) {
        log::write(log::level::info, "state",
                   "removing incomplete checkpoint " + entry.path().string());
        fs::remove_all(entry.path(), ec);
        if (ec) throw_os_error(ec.value(), "removing", entry.path());
      }
    }
  } catch (...) {
    ::close(lock_fd_);  // the destructor does not run for a constructor that throws
    throw;
  }
}

checkpoint_store::~checkpoint_store() {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the lock
}

fs::path checkpoint_store::checkpoint_directory(std::uint64_t id) const {
  return options_.directory / directory_name(id);
}

checkpoint_part checkpoint_store::write_part(std::uint64_t id, std::string_view name,
                                             std::string_view bytes) const {
  check_part_name(name);
  const fs::path dir = checkpoint_directory(id);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw_os_error(ec.value(), "creating directory", dir);
  std::string file = part_header(id, name);
  file.append(bytes);
  append_checksum(file);
  write_durably(dir / part_file_name(name), file);
  std::uint32_t crc = 0;
  std::memcpy(&crc, file.data() + file.size() - sizeof crc, sizeof crc);
  return {std::string(name), file.size(), crc};
}

void checkpoint_store::commit(const checkpoint_manifest& manifest) const {
  const fs::path dir = checkpoint_directory(manifest.id);
  for (const auto& p : manifest.parts) {
    check_part_name(p.name);
    std::error_code ec;
    const auto size = fs::file_size(dir / part_file_name(p.name), ec);
    if (ec || size != p.file_size) {
      throw std::runtime_error(
          "spate::state: not committing checkpoint " + std::to_string(manifest.id) + ": its part " +
          (dir / part_file_name(p.name)).string() +
          (ec ? " is missing (" + ec.message() + ")"
              : " has " + std::to_string(size) + " bytes, not " + std::to_string(p.file_size)));
    }
  }
  if (!fs::is_directory(dir)) {
    // A checkpoint without parts (a graph with no state) still gets its directory.
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw_os_error(ec.value(), "creating directory", dir);
  }
  // The parts' directory entries and the checkpoint's own are durable before the commit
  // point, so a MANIFEST never survives a crash that its parts do not.
  sync_directory(dir);
  sync_directory(options_.directory);
  const fs::path tmp = dir / manifest_tmp_name;
  write_durably(tmp, encode_manifest(manifest));
  if (::rename(tmp.c_str(), (dir / manifest_name).c_str()) != 0) {
    const int error = errno;
    throw_os_error(error, "renaming", tmp);
  }
  sync_directory(dir);  // the rename
}

void checkpoint_store::remove(std::uint64_t id) const {
  const fs::path dir = checkpoint_directory(id);
  std::error_code ec;
  // The MANIFEST first: a crash in between leaves an incomplete checkpoint, which the next
  // store deletes, never a complete one missing parts.
  if (fs::remove(dir / manifest_name, ec)) sync_directory(dir);
  if (ec) throw_os_error(ec.value(), "removing", dir / manifest_name);
  fs::remove_all(dir, ec);
  if (ec) throw_os_error(ec.value(), "removing", dir);
}

std::vector<std::uint64_t> checkpoint_store::complete() const {
  std::vector<std::uint64_t> ids;
  for (const auto& entry : fs::directory_iterator(options_.directory)) {
    const auto id = id_of(entry.path());
    if (id && entry.is_directory() && fs::exists(entry.path() / manifest_name)) {
      ids.push_back(*id);
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::uint64_t checkpoint_store::next_id() {
  std::uint64_t next = last_id_ + 1;
  for (const auto& entry : fs::directory_iterator(options_.directory)) {
    if (const auto id = id_of(entry.path())) next = std::max(next, *id + 1);
  }
  last_id_ = next;
  return next;
}

std::optional<checkpoint_manifest> checkpoint_store::check(std::uint64_t id,
                                                           std::string_view fingerprint,
                                                           std::string& problem) const {
  const fs::path dir = checkpoint_directory(id);
  const std::string shown = directory_name(id) + "/";
  int error = 0;
  const auto manifest_file = read_file(dir / manifest_name, error);
  if (!manifest_file) {
    problem = shown + std::string(manifest_name) + ": unreadable (" + std::strerror(error) + ")";
    return std::nullopt;
  }
  std::string why;
  auto manifest = decode_manifest(*manifest_file, why);
  if (!manifest) {
    problem = shown + std::string(manifest_name) + ": " + why;
    return std::nullopt;
  }
  if (manifest->id != id) {
    problem =
        shown + std::string(manifest_name) + ": names checkpoint " + std::to_string(manifest->id);
    return std::nullopt;
  }
  if (manifest->fingerprint != fingerprint) {
    problem = shown + std::string(manifest_name) + ": written by another graph (fingerprint '" +
              manifest->fingerprint + "', this graph's is '" + std::string(fingerprint) + "')";
    return std::nullopt;
  }
  for (const auto& part : manifest->parts) {
    const std::string file_name = part_file_name(part.name);
    const auto bytes = read_file(dir / file_name, error);
    if (!bytes) {
      problem = shown + file_name + ": " + (error == ENOENT ? "missing" : "unreadable") + " (" +
                std::strerror(error) + ")";
      return std::nullopt;
    }
    if (!check_part(*bytes, part, id, why)) {
      problem = shown + file_name + ": " + why;
      return std::nullopt;
    }
  }
  return manifest;
}

std::optional<checkpoint_manifest> checkpoint_store::latest(
    std::string_view fingerprint, std::vector<std::string>& problems) const {
  auto ids = complete();
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
    std::string problem;
    if (auto manifest = check(*it, fingerprint, problem)) return manifest;
    log::write(log::level::warn, "state",
               "skipping checkpoint " + (options_.directory / problem).string() +
                   "; trying the one before");
    problems.push_back(std::move(problem));
  }
  return std::nullopt;
}

std::string checkpoint_store::read_part(const checkpoint_manifest& manifest,
                                        std::string_view name) const {
  const auto entry = std::find_if(manifest.parts.begin(), manifest.parts.end(),
                                  [&](const checkpoint_part& p) { return p.name == name; });
  const fs::path path = checkpoint_directory(manifest.id) / part_file_name(name);
  if (entry == manifest.parts.end()) {
    throw std::invalid_argument("spate::state: checkpoint " + std::to_string(manifest.id) +
                                " has no part '" + std::string(name) + "'");
  }
  int error = 0;
  auto bytes = read_file(path, error);
  if (!bytes) throw_os_error(error, "reading", path);
  std::string why;
  if (!check_part(*bytes, *entry, manifest.id, why)) {
    throw std::runtime_error("spate::state: " + path.string() + ": " + why);
  }
  const std::size_t header = part_header(manifest.id, entry->name).size();
  return bytes->substr(header, bytes->size() - header - sizeof(std::uint32_t));
}

void checkpoint_store::retire(std::optional<std::uint64_t> keep) const {
  const auto ids = complete();
  if (ids.size() <= options_.retain) return;
  for (std::size_t i = 0; i + options_.retain < ids.size(); ++i) {
    if (keep && ids[i] == *keep) continue;
    remove(ids[i]);
  }
}

}  // namespace spate::state
