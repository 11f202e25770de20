//! Regular expressions as Flink's functions use them: `REGEXP(s, p)` (a
//! match anywhere), `REGEXP_EXTRACT(s, p [, group])` (the group of the
//! first match, the whole match by default; NULL without a match or for a
//! group the pattern does not have) and `REGEXP_REPLACE(s, p, r)` (every
//! match, replaced by `r` as it is: Flink quotes it, so `$1` is text). The pattern must be a literal: it
//! is compiled once, and a pattern the `regex` crate does not accept
//! (back-references, look-around) is an error when the job is planned.
//! Here: the patterns, the functions and their evaluation (compiling them
//! from SQL is `compile_regex`'s).

use lowwater_core::Value;

/// A compiled pattern, compared by its text.
#[derive(Debug, Clone)]
pub struct Pattern(regex::Regex);

impl Pattern {
    /// The pattern of Java regular expression `text` (its ASCII classes
    /// spelled out), or why the `regex` crate does not accept it.
    pub(crate) fn new(text: &str) -> Result<Pattern, regex::Error> {
        regex::Regex::new(&java_classes(text)).map(Pattern)
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.0.as_str() == other.0.as_str()
    }
}

/// Which regular-expression function.
#[derive(Debug, Clone, PartialEq)]
pub enum RegexFn {
    /// `REGEXP(s, p)`.
    Matches(Pattern),
    /// `REGEXP_EXTRACT(s, p [, group])`: arguments `s, group`.
    Extract(Pattern),
    /// `REGEXP_REPLACE(s, p, r)`: arguments `s, r`.
    Replace(Pattern),
}

/// Java's `\\w`, `\\d` and `\\s` (and their negations) are ASCII classes;
/// the `regex` crate's are Unicode ones: they are spelled out.
fn java_classes(p: &str) -> String {
    let mut out = String::with_capacity(p.len() + 16);
    let mut it = p.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('w') => out.push_str("[0-9A-Za-z_]"),
            Some('W') => out.push_str("[^0-9A-Za-z_]"),
            Some('d') => out.push_str("[0-9]"),
            Some('D') => out.push_str("[^0-9]"),
            Some('s') => out.push_str("[\\t\\n\\x0B\\f\\r ]"),
            Some('S') => out.push_str("[^\\t\\n\\x0B\\f\\r ]"),
            Some(n) => {
                out.push('\\');
                out.push(n);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Evaluates `f` over its evaluated arguments.
pub fn eval(f: &RegexFn, args: &[Value]) -> Value {
    let Some(Value::Str(s)) = args.first() else {
        return Value::Null;
    };
    match f {
        RegexFn::Matches(p) => Value::Bool(p.0.is_match(s)),
        RegexFn::Extract(p) => {
            let Some(Value::Int(g)) = args.get(1) else {
                return Value::Null;
            };
            let group = usize::try_from(*g).ok();
            p.0.captures(s)
                .and_then(|c| c.get(group?))
                .map_or(Value::Null, |m| Value::str(m.as_str()))
        }
        RegexFn::Replace(p) => match args.get(1) {
            // Flink quotes the replacement (Matcher.quoteReplacement): `$1`
            // is text, not a group.
            Some(Value::Str(r)) => Value::str(&p.0.replace_all(s, regex::NoExpand(r))),
            _ => Value::Null,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_classes_and_literal_replacements() {
        let w = regex::Regex::new(&java_classes("^\\w+\\\\d")).expect("regex");
        assert!(w.is_match("ab_1\\d") && !w.is_match("ß\\d"), "{w}");
        let p = Pattern(regex::Regex::new("(\\d+)-(\\d+)").expect("regex"));
        let v = |s: &str| Value::str(s);
        assert_eq!(
            eval(
                &RegexFn::Replace(p.clone()),
                &[v("1-2 and 30-4"), v("$2-$1")]
            ),
            v("$2-$1 and $2-$1")
        );
        assert_eq!(
            eval(&RegexFn::Extract(p.clone()), &[v("x 10-20"), Value::Int(2)]),
            v("20")
        );
        assert_eq!(
            eval(&RegexFn::Extract(p.clone()), &[v("x 10-20"), Value::Int(3)]),
            Value::Null
        );
        assert_eq!(
            eval(&RegexFn::Extract(p), &[v("none"), Value::Int(0)]),
            Value::Null
        );
    }
}
