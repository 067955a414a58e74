// A SAX handler for chinese-poetry JSON. It tracks how deep it is (top array, poem object, paragraphs
// array, or some other value it skips) and builds each Document as the parser walks the text.
#include "corpus/PoemsJson.h"

#include <nlohmann/json.hpp>

#include "io/JsonDocument.h"
#include "workbench/domain/Errors.h"

namespace wb::detail {
namespace {

const char* const kPoemShape = "expected an object with a \"paragraphs\" array of strings";

class PoemsHandler : public nlohmann::json_sax<nlohmann::json> {
public:
    PoemsHandler(const std::string& text, const std::string& source) : m_text(text), m_source(source) {}
    std::vector<Document> documents;

    bool null() override { return scalar("null", nullptr); }
    bool boolean(bool) override { return scalar("a boolean", nullptr); }
    bool number_integer(number_integer_t) override { return scalar("an integer", nullptr); }
    bool number_unsigned(number_unsigned_t) override { return scalar("an integer", nullptr); }
    bool number_float(number_float_t, const string_t&) override { return scalar("a number", nullptr); }
    bool string(string_t& s) override { return scalar("a string", &s); }
    bool binary(binary_t&) override { return scalar("binary data", nullptr); }

    bool start_object(std::size_t) override {
        if (m_skipDepth > 0 || (m_state == State::InPoem)) return enterSkipped();
        if (m_state == State::Top) failTop("an object");
        if (m_state == State::InParagraphs) failElement();
        // m_state == InArray: a new poem
        m_state = State::InPoem;
        m_current = Document{};
        m_hasParagraphs = false;
        return true;
    }
    bool key(string_t& k) override {
        if (m_skipDepth == 0) m_key = std::move(k);
        return true;
    }
    bool end_object() override {
        if (m_skipDepth > 0) return leaveSkipped();
        if (!m_hasParagraphs) failElement();
        documents.push_back(std::move(m_current));
        m_state = State::InArray;
        return true;
    }
    bool start_array(std::size_t) override {
        if (m_skipDepth > 0) return enterSkipped();
        switch (m_state) {
            case State::Top:
                m_state = State::InArray;
                return true;
            case State::InArray:
                failElement("an array");
            case State::InParagraphs:
                failElement();
            case State::InPoem:
                if (m_key != "paragraphs") return enterSkipped();
                m_state = State::InParagraphs;
                return true;
        }
        return true;
    }
    bool end_array() override {
        if (m_skipDepth > 0) return leaveSkipped();
        if (m_state == State::InParagraphs) {
            if (!m_sawParagraph) failElement();
            m_hasParagraphs = true;
            m_sawParagraph = false;
            m_state = State::InPoem;
            return true;
        }
        // End of the top-level array.
        if (documents.empty()) throw InputError(m_source, 0, "no poems (the array is empty)");
        m_state = State::Top;
        return true;
    }
    bool parse_error(std::size_t position, const std::string&,
                     const nlohmann::detail::exception& e) override {
        // Reuse the DOM parser's message format: same prefix stripping, same line computation.
        const std::size_t pos = position > 0 ? position - 1 : 0;
        std::string what = e.what();
        const auto prefixEnd = what.find(": ");
        throw InputError(
            m_source, lineOfOffset(m_text, pos),
            "invalid JSON: " + (prefixEnd == std::string::npos ? what : what.substr(prefixEnd + 2)),
            static_cast<std::int64_t>(pos));
    }

private:
    enum class State { Top, InArray, InPoem, InParagraphs };

    bool scalar(const char* type, string_t* s) {
        if (m_skipDepth > 0) return true;
        switch (m_state) {
            case State::Top:
                failTop(type);
            case State::InArray:
                failElement(type);
            case State::InParagraphs:
                if (!s) failElement();
                if (m_sawParagraph) m_current.text.push_back('\n');
                m_current.text += *s;
                m_sawParagraph = true;
                return true;
            case State::InPoem:
                if (m_key == "paragraphs") failElement();
                if (m_key == "title" || m_key == "author") {
                    if (!s && std::string(type) != "null")
                        throw InputError(m_source, 0, where() + m_key + ": expected a string, found " + type);
                    if (s) (m_key == "title" ? m_current.title : m_current.author) = std::move(*s);
                }
                return true;
        }
        return true;
    }
    bool enterSkipped() {
        ++m_skipDepth;
        return true;
    }
    bool leaveSkipped() {
        --m_skipDepth;
        return true;
    }
    std::string where() const { return "element " + std::to_string(documents.size()) + ": "; }
    [[noreturn]] void failElement(const char* found = nullptr) const {
        throw InputError(m_source, 0, where() + kPoemShape + (found ? std::string(", found ") + found : ""));
    }
    [[noreturn]] void failTop(const char* found) const {
        throw InputError(
            m_source, 0,
            std::string("expected a JSON array of poems (chinese-poetry format), found ") + found);
    }

    const std::string& m_text;
    const std::string& m_source;
    State m_state = State::Top;
    int m_skipDepth = 0;
    std::string m_key;
    Document m_current;
    bool m_hasParagraphs = false;
    bool m_sawParagraph = false;
};

}  // namespace

std::vector<Document> parsePoemsJson(const std::string& text, const std::string& sourceName) {
    PoemsHandler handler(text, sourceName);
    nlohmann::json::sax_parse(text, &handler);
    return std::move(handler.documents);
}

}  // namespace wb::detail
