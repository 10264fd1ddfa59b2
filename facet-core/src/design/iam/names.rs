//! Names of policies and statement ids: letters and digits, as CloudFormation logical ids
//! and IAM `Sid`s must be.

/// `text`'s words (runs of ASCII letters and digits) in `PascalCase`: each word's first
/// letter upper case, and a word without lower-case letters (`USER`, `GSI2`) lower case
/// after it: `query GSI2 (byStatus)` → `QueryGsi2ByStatus`.
pub(crate) fn pascal(text: &str) -> String {
    let mut out = String::new();
    for word in text.split(|c: char| !c.is_ascii_alphanumeric()) {
        let shout = !word.chars().any(|c| c.is_ascii_lowercase());
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            if shout {
                out.extend(chars.map(|c| c.to_ascii_lowercase()));
            } else {
                out.extend(chars);
            }
        }
    }
    out
}

/// Make every name of `names` unique, appending `2`, `3`, … to a name already taken.
pub(crate) fn unique(names: &mut [String]) {
    for i in 1..names.len() {
        let base = names[i].clone();
        let mut n = 1;
        while names[..i].contains(&names[i]) {
            n += 1;
            names[i] = format!("{base}{n}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_pascal_case_words() {
        assert_eq!(pascal("query GSI2 (byStatus)"), "QueryGsi2ByStatus");
        assert_eq!(pascal("USER"), "User");
        assert_eq!(pascal("get one"), "GetOne");
        assert_eq!(pascal("app:tenant-id"), "AppTenantId");
        assert_eq!(pascal("orderLine"), "OrderLine");
        let mut names = vec![
            "A".to_owned(),
            "B".to_owned(),
            "A".to_owned(),
            "A".to_owned(),
        ];
        unique(&mut names);
        assert_eq!(names, ["A", "B", "A2", "A3"]);
    }
}
