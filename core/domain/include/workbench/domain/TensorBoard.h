// TensorBoard's event files, written as a run trains: `tensorboard --logdir runs/` shows the app's runs
// beside a user's own. The documented record format, written directly: TFRecord framing (length, masked
// CRC-32C of the length, data, masked CRC-32C of the data) around Event protocol buffers
// (tensorboard/compat/proto/event.proto, summary.proto, tensor.proto; the hparams plugin's
// plugin_data.proto), a new file per sitting as TensorFlow's and PyTorch's writers do. Not a library: the
// maintained C++ writers are TensorFlow itself or ones that need protoc and libprotobuf, for six messages.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace wb {

class TensorBoardWriter {
public:
    // Creates events.out.tfevents.<unix time>.<host>.<pid>.<n> in dir and writes its version record.
    // Throws InputError when the file cannot be created.
    explicit TensorBoardWriter(const std::string& dir);
    ~TensorBoardWriter();
    TensorBoardWriter(const TensorBoardWriter&) = delete;
    TensorBoardWriter& operator=(const TensorBoardWriter&) = delete;

    // A scalar (TensorBoard's simple_value, a float): a line on the Scalars page.
    void scalar(const std::string& tag, std::int64_t step, double value);
    // Markdown for the Text page.
    void text(const std::string& tag, std::int64_t step, const std::string& markdown);
    // The run's settings on the HParams page (hparams plugin, session start info).
    using HParam = std::variant<double, std::string, bool>;
    void hparams(const std::vector<std::pair<std::string, HParam>>& values);
    // The HParams page's status of this session (the hparams plugin's session end info; TensorBoard reads
    // the first one a run's files hold): the values of TensorBoard's api.proto Status.
    enum class SessionStatus { Unknown = 0, Success = 1, Failure = 2, Running = 3 };
    void sessionStatus(SessionStatus status);
    // SessionLog START at step: TensorBoard drops what earlier files of the run hold at this step and after
    // (a resumed run's steps after its checkpoint, recorded again).
    void sessionStart(std::int64_t step);
    // Writes what is buffered to the file (records are small and few: every write is flushed).
    void flush();

    const std::string& path() const { return m_path; }

private:
    void write(const std::string& event);
    std::string m_path;
    std::FILE* m_file = nullptr;
};

// The records of an event file (or any TFRecord file), each checked against both of its CRCs. Throws
// InputError naming the file and the record for a truncated or corrupt one; a file cut inside its last
// record (a writer still writing, or killed) yields the records before it.
std::vector<std::string> readTfRecords(const std::string& path);
// CRC-32C (Castagnoli) and TFRecord's mask of it.
std::uint32_t crc32c(std::string_view bytes);
std::uint32_t maskedCrc32c(std::string_view bytes);

}  // namespace wb
