//! Look-alikes of a protected wing, refused to non-admins: a name equal to a protected one after
//! NFKC and lower case (a full-width `ｗ`), or of the same TR39 confusable skeleton (a Cyrillic `і`).

use unicode_normalization::UnicodeNormalization;
use unicode_security::skeleton;

use super::globs::Globs;

/// The protected glob `name` imitates without matching it, if any.
pub fn imitated<'a>(protected: &'a Globs, name: &str) -> Option<&'a str> {
    if protected.matches(name) {
        return None;
    }
    let folded: String = name.nfkc().collect::<String>().to_lowercase();
    let shape: String = skeleton(&folded).collect();
    protected.iter().map(String::as_str).find(|glob| {
        let glob_shape: String = skeleton(&glob.to_lowercase()).collect();
        let matches =
            |pattern: &str, s: &str| glob::Pattern::new(pattern).is_ok_and(|p| p.matches(s));
        matches(glob, &folded) || matches(&glob_shape, &shape)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alikes_of_a_protected_wing_are_caught_and_other_names_are_not() {
        let protected = Globs::new(vec!["wing_rules*".into(), "wing_ops".into()]);
        for alike in [
            "w\u{456}ng_rules",  // Cyrillic і
            "\u{ff57}ing_rules", // full-width ｗ
            "wing_ru1es",        // a digit one for an l
            "w\u{456}ng_ops",
        ] {
            assert!(imitated(&protected, alike).is_some(), "{alike}");
        }
        for other in [
            "wing_rules",
            "wing_rules_v2",
            "wing_lap",
            "wing_m\u{fc}ller",
            "wing_opsx",
        ] {
            assert_eq!(imitated(&protected, other), None, "{other}");
        }
    }
}
