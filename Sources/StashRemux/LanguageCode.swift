import Foundation

/// The language tag of a track as containers store it: ISO 639-2, three letters. MP4 takes
/// the terminology code (`deu`), Matroska's Language element the bibliographic one (`ger`);
/// they differ for 20 languages.
enum LanguageCode {
    /// `und` for a missing tag or one whose primary subtag is no ISO 639 language.
    static func iso639Part2(_ tag: String?, bibliographic: Bool) -> String {
        guard let primary = tag?.split(separator: "-").first?.lowercased(),
            primary.count == 2 || primary.count == 3, primary.allSatisfy({ $0.isASCII && $0.isLetter })
        else { return "und" }
        let terminology: String
        if primary.count == 3 {
            terminology = terminologyOf[primary] ?? primary
        } else {
            guard let code = Locale.LanguageCode(primary).identifier(.alpha3), code.count == 3 else { return "und" }
            terminology = code
        }
        return bibliographic ? (bibliographicOf[terminology] ?? terminology) : terminology
    }

    /// ISO 639-2/T to /B where they differ.
    static let bibliographicOf: [String: String] = [
        "sqi": "alb", "hye": "arm", "eus": "baq", "mya": "bur", "zho": "chi", "ces": "cze", "nld": "dut", "fra": "fre", "kat": "geo",
        "deu": "ger", "ell": "gre", "isl": "ice", "mkd": "mac", "mri": "mao", "msa": "may", "fas": "per", "ron": "rum", "slk": "slo",
        "bod": "tib", "cym": "wel",
    ]

    static let terminologyOf: [String: String] = Dictionary(uniqueKeysWithValues: bibliographicOf.map { ($1, $0) })
}
