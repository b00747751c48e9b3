// rjoracle: the reference for batsimfmt's rapidjson emulation. It reads
// requests on stdin, one per line, and answers each on one line of stdout:
//
//   p LITERAL   parse LITERAL as a whole JSON document with
//               Document::Parse (default flags), as Batsim and batsched
//               do, and answer "i BITS" (an integer value) or "d BITS" (a
//               double value), BITS being GetDouble()'s 16 hexadecimal
//               digits, or "e NAME" with the parse error's name;
//   w BITS      write the double of bits BITS (16 hexadecimal digits) with
//               rapidjson::Writer<StringBuffer>, as batsched does, and
//               answer the text written (nothing when the Writer refuses).
//
// Build: g++ -O2 -ffp-contract=off -w -I RAPIDJSON_INCLUDE rjoracle.cpp
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

static const char *errorName(rapidjson::ParseErrorCode c) {
    switch (c) {
    case rapidjson::kParseErrorDocumentEmpty: return "empty";
    case rapidjson::kParseErrorDocumentRootNotSingular: return "trailing";
    case rapidjson::kParseErrorValueInvalid: return "invalid";
    case rapidjson::kParseErrorNumberTooBig: return "too-big";
    case rapidjson::kParseErrorNumberMissFraction: return "miss-fraction";
    case rapidjson::kParseErrorNumberMissExponent: return "miss-exponent";
    default: return "other";
    }
}

static uint64_t bitsOf(double d) {
    uint64_t u;
    std::memcpy(&u, &d, sizeof u);
    return u;
}

int main() {
    std::ios::sync_with_stdio(false);
    std::string line;
    std::string out;
    while (std::getline(std::cin, line)) {
        if (line.size() < 2 || line[1] != ' ') {
            std::fprintf(stderr, "bad request: %s\n", line.c_str());
            return 2;
        }
        const std::string arg = line.substr(2);
        char buf[64];
        if (line[0] == 'p') {
            rapidjson::Document doc;
            doc.Parse(arg.c_str());
            if (doc.HasParseError()) {
                out += "e ";
                out += errorName(doc.GetParseError());
            } else if (!doc.IsNumber()) {
                out += "e not-a-number";
            } else {
                std::snprintf(buf, sizeof buf, "%c %016" PRIx64, doc.IsDouble() ? 'd' : 'i', bitsOf(doc.GetDouble()));
                out += buf;
            }
        } else if (line[0] == 'w') {
            uint64_t u = std::strtoull(arg.c_str(), nullptr, 16);
            double d;
            std::memcpy(&d, &u, sizeof d);
            rapidjson::StringBuffer sb;
            rapidjson::Writer<rapidjson::StringBuffer> w(sb);
            w.Double(d);
            out += sb.GetString();
        } else {
            std::fprintf(stderr, "bad request: %s\n", line.c_str());
            return 2;
        }
        out += '\n';
        if (out.size() > (1 << 16)) {
            std::fwrite(out.data(), 1, out.size(), stdout);
            out.clear();
        }
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}
