//! Flink's JSON functions over a STRING holding JSON text, as Flink 2.3
//! runs them (checked on real runs): `JSON_VALUE(s, path [RETURNING
//! type])` and `JSON_EXISTS(s, path)` with Flink's defaults, `NULL ON
//! EMPTY` and `NULL ON ERROR`, `FALSE ON ERROR`:
//!
//! - JSON_VALUE gives the scalar at `path` as text: a string as it is, a
//!   number as Java's BigDecimal or Long prints the literal (`1.50`,
//!   `1E+2`, `0.0` for `-0.0`), `true`/`false`; NULL for a JSON null, an
//!   object or array, a missing value, or text whose first JSON value does
//!   not parse (text after it is not read, as Jackson does not read it).
//! - `RETURNING INT | DOUBLE | BOOLEAN` takes the value as it is, not cast:
//!   an integer that fits an INT, a number with a fraction or an exponent,
//!   a boolean. Any other value fails the job, as Flink's ClassCastException
//!   does (`DEFAULT ... ON ERROR` does not catch it there either).
//! - JSON_EXISTS is true when the path reaches a value that is not null.
//! - JSON_QUERY gives the object or array at `path` as JSON text, written
//!   as Flink writes it ([`crate::json_query`]).
//!
//! The path is a literal, read once when the job is planned: `$` (or a
//! bare first name), `.name`, `."name"`, `['name']`, `[n]`, `[-n]` (from
//! the end). Here: the paths and the evaluation (compiling them from SQL
//! is `compile_json`'s).

use lowwater_core::Value;
use sonic_rs::JsonValueTrait;

use crate::json_query::number_text;

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A member of an object.
    Key(String),
    /// An element of an array (negative: from the end).
    Index(i64),
}

/// A compiled JSON path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Path {
    /// `strict`: a step that does not apply is an error (NULL, or FALSE for
    /// JSON_EXISTS, under Flink's defaults: the same rows as lax here).
    pub strict: bool,
    /// The steps after `$`.
    pub steps: Vec<Step>,
}

/// What `JSON_VALUE ... RETURNING` gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Returning {
    /// STRING (the default).
    Text,
    /// INT: a JSON integer that fits.
    Int,
    /// DOUBLE: a JSON number with a fraction or an exponent.
    Double,
    /// BOOLEAN: a JSON boolean.
    Boolean,
}

/// Which JSON function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonFn {
    /// `JSON_VALUE(s, path [RETURNING type])`.
    Value(Path, Returning),
    /// `JSON_EXISTS(s, path)`.
    Exists(Path),
    /// `JSON_QUERY(s, path)`: the object or array there, as JSON text
    /// ([`crate::json_query`]).
    Query(Path),
}

impl Path {
    /// Reads `text` (`[lax|strict] $ ...`), or says why it is not a path.
    pub fn parse(text: &str) -> Result<Path, String> {
        let t = text.trim();
        let (strict, rest) = match t.split_once(char::is_whitespace) {
            Some(("strict", r)) => (true, r.trim_start()),
            Some(("lax", r)) => (false, r.trim_start()),
            _ => (false, t),
        };
        // A path without `$` starts at its first name (`a.b` is `$.a.b`).
        let bare = format!("$.{rest}");
        let Some(mut rest) = rest.strip_prefix('$').or_else(|| {
            rest.starts_with(|c: char| c.is_alphabetic() || c == '_')
                .then(|| &bare[1..])
        }) else {
            return Err(format!("the JSON path '{text}' must start with '$'"));
        };
        let mut steps = Vec::new();
        while !rest.is_empty() {
            if let Some(r) = rest.strip_prefix('.') {
                if let Some(r) = r.strip_prefix('"') {
                    let end = r
                        .find('"')
                        .ok_or_else(|| format!("the JSON path '{text}' has an unclosed '\"'"))?;
                    steps.push(Step::Key(r[..end].to_string()));
                    rest = &r[end + 1..];
                    continue;
                }
                let end = r.find(['.', '[']).unwrap_or(r.len());
                let name = &r[..end];
                if name.is_empty() || name == "*" {
                    return Err(format!(
                        "the JSON path '{text}' has a step lowwater does not read ('.{name}'): \
                         use $.name, $['name'] or $[n]"
                    ));
                }
                steps.push(Step::Key(name.to_string()));
                rest = &r[end..];
            } else if let Some(r) = rest.strip_prefix('[') {
                let end = r
                    .find(']')
                    .ok_or_else(|| format!("the JSON path '{text}' has an unclosed '['"))?;
                let inner = r[..end].trim();
                let quoted = inner
                    .strip_prefix('\'')
                    .and_then(|i| i.strip_suffix('\''))
                    .or_else(|| inner.strip_prefix('"').and_then(|i| i.strip_suffix('"')));
                match (quoted, inner.parse::<i64>()) {
                    (Some(k), _) => steps.push(Step::Key(k.to_string())),
                    (None, Ok(i)) => steps.push(Step::Index(i)),
                    _ => {
                        return Err(format!(
                        "the JSON path '{text}' has a step lowwater does not read ('[{inner}]'): \
                             use $.name, $['name'] or $[n]"
                    ))
                    }
                }
                rest = &r[end + 1..];
            } else {
                return Err(format!(
                    "the JSON path '{text}' is not one lowwater reads: after '$' come .name, \
                     ['name'] or [n] steps"
                ));
            }
        }
        Ok(Path { strict, steps })
    }
}

/// The raw JSON of the value at `path` in `text`, read lazily (nothing
/// around it is built, so deep nesting elsewhere costs no stack); `None`
/// when there is none or the text does not parse up to it.
fn locate<'t>(text: &'t str, path: &Path) -> Option<&'t str> {
    // The first JSON value of the text (what follows it is not read).
    let whole = sonic_rs::get_from_str(text, &[] as &[sonic_rs::PointerNode]).ok()?;
    let mut cur = within(text, whole.as_raw_str())?;
    for step in &path.steps {
        cur = match step {
            // Of members with one name the last counts, as in the tree
            // Jackson builds (Flink's JSON functions read that tree).
            Step::Key(k) => {
                if !cur.trim_start().starts_with('{') {
                    return None;
                }
                let mut found = None;
                for member in sonic_rs::to_object_iter(cur) {
                    let (name, v) = member.ok()?;
                    if name.as_ref() == k.as_str() {
                        found = Some(within(text, v.as_raw_str())?);
                    }
                }
                found?
            }
            Step::Index(i) => {
                if !cur.trim_start().starts_with('[') {
                    return None;
                }
                let at = match usize::try_from(*i) {
                    Ok(at) => at,
                    // From the end: the array's length first.
                    Err(_) => {
                        let len = sonic_rs::to_array_iter(cur).count() as i64;
                        usize::try_from(len + i).ok()?
                    }
                };
                let v = sonic_rs::to_array_iter(cur).nth(at)?.ok()?;
                within(text, v.as_raw_str())?
            }
        };
    }
    Some(cur)
}

/// `part` (a value sonic-rs read from `text`, which it borrows) as a slice
/// of `text` itself.
fn within<'t>(text: &'t str, part: &str) -> Option<&'t str> {
    let start = (part.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    text.get(start..start.checked_add(part.len())?)
}

/// Evaluates `f` over its argument (the JSON text); an error for a value
/// `RETURNING` cannot take, as Flink fails there.
pub fn eval(f: &JsonFn, arg: &Value) -> Result<Value, String> {
    let Value::Str(text) = arg else {
        return Ok(Value::Null);
    };
    let (path, returning) = match f {
        JsonFn::Value(p, r) => (p, Some(*r)),
        JsonFn::Exists(p) | JsonFn::Query(p) => (p, None),
    };
    // Nested deeper than [`MAX_NESTING`] the text is an error: NULL,
    // FALSE. Text after the first JSON value is not read.
    let found = match lowwater_core::text::nests_deeper(text, MAX_NESTING) {
        true => None,
        false => locate(text, path),
    };
    if let JsonFn::Query(_) = f {
        return Ok(found
            .and_then(crate::json_query::query_text)
            .map_or(Value::Null, |t| Value::str(&t)));
    }
    // The value, read lazily from its own text.
    let found = match found.map(|raw| sonic_rs::get_from_str(raw, &[] as &[sonic_rs::PointerNode]))
    {
        Some(Ok(v)) => Some(v),
        _ => None,
    };
    let Some(returning) = returning else {
        return Ok(Value::Bool(found.is_some_and(|v| !v.is_null())));
    };
    let Some(v) = found else {
        return Ok(Value::Null);
    };
    // A number as Java prints the literal (`1.50` is not `1.5`).
    let number = || {
        v.is_number()
            .then(|| number_text(v.as_raw_str().trim()))
            .flatten()
    };
    let wrong = |what: &str| {
        Err(format!(
            "JSON_VALUE(..., '{}' RETURNING {what}): the value there is {}, which Flink cannot \
             return as {what} (it fails the job with a ClassCastException); read it as a STRING \
             and CAST it, or RETURNING the type it has",
            path_text(path),
            v.as_raw_str()
        ))
    };
    Ok(match returning {
        Returning::Text => {
            if let Some(s) = v.as_str() {
                Value::str(s)
            } else if let Some(b) = v.as_bool() {
                Value::str(if b { "true" } else { "false" })
            } else if let Some(t) = number() {
                Value::str(&t)
            } else {
                Value::Null
            }
        }
        _ if v.is_null() => Value::Null,
        Returning::Boolean => match v.as_bool() {
            Some(b) => Value::Bool(b),
            None => return wrong("BOOLEAN"),
        },
        Returning::Int => match (v.as_i64().and_then(|i| i32::try_from(i).ok()), number()) {
            (Some(i), Some(t)) if !t.contains(['.', 'E']) => Value::Int(i64::from(i)),
            _ => return wrong("INT"),
        },
        Returning::Double => match (v.as_f64(), number()) {
            (Some(d), Some(t)) if t.contains(['.', 'E']) => Value::Double(d),
            _ => return wrong("DOUBLE"),
        },
    })
}

/// The deepest nesting read. Jackson reads 1,000 levels; lowwater reads
/// 32 (the lookup recurses per level, and deeper text could run a
/// thread's stack out), so text nested deeper is NULL here where Flink
/// reads it: a known difference.
const MAX_NESTING: usize = 32;

/// A path as messages show it.
fn path_text(p: &Path) -> String {
    let mut s = String::from("$");
    for step in &p.steps {
        match step {
            Step::Key(k) => {
                s.push('.');
                s.push_str(k);
            }
            Step::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(doc: &str, path: &str) -> Value {
        let f = JsonFn::Value(Path::parse(path).expect("path"), Returning::Text);
        eval(&f, &Value::str(doc)).expect("a value")
    }

    #[test]
    fn paths_read_as_flink_writes_them() {
        let p = Path::parse("lax $.user['id'][2].\"a b\"").expect("path");
        assert_eq!(
            p.steps,
            vec![
                Step::Key("user".into()),
                Step::Key("id".into()),
                Step::Index(2),
                Step::Key("a b".into())
            ]
        );
        assert!(Path::parse("strict $.a").is_ok_and(|p| p.strict));
        assert_eq!(
            Path::parse("user.id").map(|p| p.steps.len()),
            Ok(2),
            "a bare name starts the path"
        );
        assert!(Path::parse("$.a[-1]")
            .is_ok_and(|p| p.steps == vec![Step::Key("a".into()), Step::Index(-1)]));
        assert!(Path::parse("$.items[*]").is_err());
        assert!(Path::parse("$..a").is_err());
    }

    #[test]
    fn scalars_as_text_and_null_for_the_rest() {
        let doc = r#"{"a":{"b":"x"},"n":15.93,"i":1099511627777,"t":true,"z":null,"arr":[1,2]}"#;
        assert_eq!(value(doc, "$.a.b"), Value::str("x"));
        assert_eq!(value(doc, "$.n"), Value::str("15.93"));
        assert_eq!(value(doc, "$.i"), Value::str("1099511627777"));
        assert_eq!(value(doc, "$.t"), Value::str("true"));
        assert_eq!(value(doc, "$.arr[1]"), Value::str("2"));
        for missing in ["$.z", "$.a", "$.arr", "$.nope", "$.a.b.c", "$.arr[5]"] {
            assert_eq!(value(doc, missing), Value::Null, "{missing}");
        }
        assert_eq!(value("{broken", "$.a"), Value::Null);
        // Text after the first value is not read, as Jackson does not.
        assert_eq!(value(r#"{"x":1} xyz"#, "$.x"), Value::str("1"));
        assert_eq!(value(r#"{"a":[1,2,3]}"#, "$.a[-1]"), Value::str("3"));
        let exists = |d: &str, p: &str| {
            eval(
                &JsonFn::Exists(Path::parse(p).expect("path")),
                &Value::str(d),
            )
            .expect("bool")
        };
        assert_eq!(
            exists(doc, "$.z"),
            Value::Bool(false),
            "a null does not exist"
        );
        assert_eq!(exists(doc, "$.arr"), Value::Bool(true));
        assert_eq!(exists(doc, "$.a.b.c"), Value::Bool(false));
        assert_eq!(exists("{broken", "$"), Value::Bool(false));
    }

    #[test]
    fn numbers_print_as_java_reads_them() {
        for (raw, java) in [
            ("15.93", "15.93"),
            ("1.50", "1.50"),
            ("1e2", "1E+2"),
            ("1.5e3", "1.5E+3"),
            ("-0.0", "0.0"),
            ("-0", "0"),
            ("12345678901234567890", "12345678901234567890"),
            ("0.00000012", "1.2E-7"),
            ("0.0000012", "0.0000012"),
            ("-2.5E-3", "-0.0025"),
        ] {
            assert_eq!(number_text(raw).as_deref(), Some(java), "{raw}");
        }
        assert_eq!(value(r#"{"n":1.50}"#, "$.n"), Value::str("1.50"));
    }

    #[test]
    fn returning_takes_the_value_as_it_is() {
        let ret = |d: &str, p: &str, r: Returning| {
            eval(
                &JsonFn::Value(Path::parse(p).expect("path"), r),
                &Value::str(d),
            )
        };
        assert_eq!(
            ret(r#"{"n":13}"#, "$.n", Returning::Int),
            Ok(Value::Int(13))
        );
        assert_eq!(
            ret(r#"{"n":13.5}"#, "$.n", Returning::Double),
            Ok(Value::Double(13.5))
        );
        assert_eq!(
            ret(r#"{"t":true}"#, "$.t", Returning::Boolean),
            Ok(Value::Bool(true))
        );
        assert_eq!(ret(r#"{"n":null}"#, "$.n", Returning::Int), Ok(Value::Null));
        assert_eq!(ret("{broken", "$.n", Returning::Int), Ok(Value::Null));
        for (doc, r) in [
            (r#"{"n":"13"}"#, Returning::Int),
            (r#"{"n":13}"#, Returning::Double),
            (r#"{"n":1099511627777}"#, Returning::Int),
            (r#"{"n":1.5}"#, Returning::Int),
            (r#"{"n":"true"}"#, Returning::Boolean),
        ] {
            let e = ret(doc, "$.n", r);
            assert!(
                e.as_ref().is_err_and(|m| m.contains("ClassCastException")),
                "{doc}: {e:?}"
            );
        }
    }
}

#[cfg(test)]
mod hostile {
    use super::*;

    #[test]
    fn json_nested_100_000_deep_is_null_not_a_crash() {
        let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
        let doc = format!(r#"{{"a":{deep},"b":2}}"#);
        let f = JsonFn::Value(Path::parse("$.b").expect("path"), Returning::Text);
        assert_eq!(eval(&f, &Value::str(&doc)), Ok(Value::Null));
        // 32 levels are read.
        let deep = format!("{}1{}", "[".repeat(31), "]".repeat(31));
        let doc = format!(r#"{{"a":{deep},"b":2}}"#);
        assert_eq!(eval(&f, &Value::str(&doc)), Ok(Value::str("2")));
    }
}
