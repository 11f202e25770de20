//! Scalar functions and predicates beyond arithmetic and comparison, with
//! Flink's NULL rules: `UPPER`, `LOWER`, `CHAR_LENGTH`, `CONCAT` (NULL if
//! any argument is), `CONCAT_WS` (skips NULLs), `SUBSTRING`/`SUBSTR`,
//! `TRIM`, `COALESCE`, `IF`, `NULLIF`, `ABS`, `MOD`, `POWER`, `SQRT`,
//! `CASE`, `LIKE`, `IN`, `BETWEEN`, `IS [NOT] DISTINCT FROM`: what each
//! call is ([`Func`]) and its evaluation. Compiling them from SQL, with
//! their result types, is `compile_functions`'s.

use lowwater_core::Value;

use crate::types::SqlType;

/// A scalar function or predicate.
#[derive(Debug, Clone, PartialEq)]
pub enum Func {
    /// `UPPER(s)`.
    Upper,
    /// `LOWER(s)`.
    Lower,
    /// `CHAR_LENGTH(s)`.
    CharLength,
    /// `CONCAT(a, b, ...)`.
    Concat,
    /// `CONCAT_WS(sep, a, ...)`.
    ConcatWs,
    /// `SUBSTRING(s FROM a [FOR n])`.
    Substring,
    /// `TRIM([BOTH|LEADING|TRAILING] [chars] FROM s)`: (leading, trailing).
    Trim(bool, bool),
    /// `COALESCE(a, ...)` (the result type's conversion applied).
    Coalesce(SqlType),
    /// `IF(cond, a, b)`.
    If(SqlType),
    /// `NULLIF(a, b)`.
    NullIf,
    /// `ABS(x)`.
    Abs,
    /// `POWER(a, b)` (and `SQRT(x)` as `POWER(x, 0.5)`), a DOUBLE.
    Power,
    /// A FLOAT as text (`CAST(f AS STRING)`), with `Float.toString` digits.
    FloatText,
    /// `MOD(a, b)`.
    Mod(SqlType),
    /// `CASE [operand] WHEN .. THEN .. [ELSE ..] END`: arguments are
    /// `[operand,] (when, then)*, else`.
    Case(bool, SqlType),
    /// `[NOT] LIKE pattern [ESCAPE c]`.
    Like(bool, Option<char>),
    /// `[NOT] IN (list)`.
    In(bool),
    /// `[NOT] BETWEEN low AND high`.
    Between(bool),
    /// `IS [NOT] DISTINCT FROM` (`true`: NOT).
    DistinctFrom(bool),
    /// A time function ([`crate::temporal`]).
    Time(crate::temporal::TimeFn),
    /// `ROUND`, `FLOOR`, `CEIL` over numbers ([`crate::numeric`]).
    Round(crate::numeric::Round),
    /// A regular-expression function ([`crate::regex_fns`]).
    Regex(crate::regex_fns::RegexFn),
    /// `TRY_CAST`: the cast, or NULL where it fails.
    Try,
    /// DECIMAL arithmetic into DECIMAL(p, s) ([`crate::decimal::arith`]).
    DecArith(crate::types::ArithOp, u8, u8),
    /// `JSON_VALUE` or `JSON_EXISTS` ([`crate::json_fns`]).
    Json(crate::json_fns::JsonFn),
    /// A conversion to or from DATE ([`crate::dates`]).
    Date(crate::dates::DateFn),
}

/// `v` converted to `ty` where a common type widens it (an integer into a
/// DOUBLE or FLOAT result).
fn widen(v: Value, ty: SqlType) -> Value {
    match (v, ty) {
        (v, SqlType::Decimal(p, s)) if !v.is_null() => v.coerce_decimal(p, s),
        (v @ Value::Decimal(..), SqlType::Double) => Value::Double(v.as_f64().unwrap_or(0.0)),
        (Value::Int(i), SqlType::Double) => Value::Double(i as f64),
        (Value::Int(i), SqlType::Float) => Value::Double(f64::from(i as f32)),
        (v, _) => v,
    }
}

fn text(v: &Value) -> Option<&str> {
    match v {
        Value::Str(s) => Some(s),
        _ => None,
    }
}

/// SQL `LIKE`: `%` any run, `_` one character, `esc` escapes them (and
/// only them, or itself: anything else is an error, as in Flink).
fn like(s: &str, p: &str, esc: Option<char>) -> std::result::Result<bool, String> {
    let s: Vec<char> = s.chars().collect();
    let mut pat: Vec<(char, bool)> = Vec::new(); // (char, literal)
    let mut it = p.chars();
    while let Some(c) = it.next() {
        if Some(c) == esc {
            match it.next() {
                Some(n) if n == '%' || n == '_' || Some(n) == esc => pat.push((n, true)),
                _ => return Err(format!("Invalid escape sequence '{p}'")),
            }
        } else {
            pat.push((c, false));
        }
    }
    // Iterative matching with backtracking on the last '%'.
    let (mut i, mut j) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while i < s.len() {
        if j < pat.len() && !pat[j].1 && pat[j].0 == '%' {
            star = Some(j);
            mark = i;
            j += 1;
        } else if j < pat.len() && ((!pat[j].1 && pat[j].0 == '_') || pat[j].0 == s[i]) {
            i += 1;
            j += 1;
        } else if let Some(st) = star {
            j = st + 1;
            mark += 1;
            i = mark;
        } else {
            return Ok(false);
        }
    }
    while j < pat.len() && !pat[j].1 && pat[j].0 == '%' {
        j += 1;
    }
    Ok(j == pat.len())
}

/// Evaluates `f` over its `n` arguments, each evaluated when `arg(i)`
/// asks for it (CASE, COALESCE and IF evaluate only those they need).
pub fn eval(
    f: &Func,
    n: usize,
    arg: impl Fn(usize) -> std::result::Result<Value, String>,
) -> std::result::Result<Value, String> {
    Ok(match f {
        Func::Upper | Func::Lower => match arg(0)? {
            Value::Str(s) => Value::str(&if *f == Func::Upper {
                s.to_uppercase()
            } else {
                s.to_lowercase()
            }),
            _ => Value::Null,
        },
        Func::CharLength => match arg(0)? {
            Value::Str(s) => Value::Int(s.chars().count() as i64),
            _ => Value::Null,
        },
        Func::Concat => {
            let mut out = String::new();
            for i in 0..n {
                match arg(i)? {
                    Value::Str(s) => out.push_str(&s),
                    _ => return Ok(Value::Null),
                }
            }
            Value::str(&out)
        }
        Func::ConcatWs => {
            let Value::Str(sep) = arg(0)? else {
                return Ok(Value::Null);
            };
            let mut parts = Vec::new();
            for i in 1..n {
                if let Value::Str(s) = arg(i)? {
                    parts.push(s.to_string());
                }
            }
            Value::str(&parts.join(&sep))
        }
        Func::Substring => {
            let (s, start) = (arg(0)?, arg(1)?);
            let (Some(s), Value::Int(start)) = (text(&s), start) else {
                return Ok(Value::Null);
            };
            let len = match arg(2)? {
                Value::Null if n > 2 => return Ok(Value::Null),
                Value::Int(n) => Some(n),
                _ => None,
            };
            let chars: Vec<char> = s.chars().collect();
            let n = chars.len() as i64;
            // SQL positions count from 1; Flink reads 0 as 1 and a negative
            // start from the end.
            let begin = if start > 0 {
                start - 1
            } else if start == 0 {
                0
            } else if n + start < 0 {
                // Flink: a negative start before the beginning is ''.
                return Ok(Value::str(""));
            } else {
                n + start
            };
            if len.is_some_and(|l| l < 0) {
                return Ok(Value::Null);
            }
            let end = len.map_or(n, |l| begin.saturating_add(l).min(n));
            if begin >= n || end <= begin {
                return Ok(Value::str(""));
            }
            Value::str(
                &chars[begin as usize..end as usize]
                    .iter()
                    .collect::<String>(),
            )
        }
        Func::Trim(lead, trail) => {
            let (s, what) = (arg(0)?, arg(1)?);
            let (Some(s), Some(w)) = (text(&s), text(&what)) else {
                return Ok(Value::Null);
            };
            let set: Vec<char> = w.chars().collect();
            let mut r: &str = s;
            if *lead {
                r = r.trim_start_matches(|c| set.contains(&c));
            }
            if *trail {
                r = r.trim_end_matches(|c| set.contains(&c));
            }
            Value::str(r)
        }
        Func::Coalesce(ty) => {
            for i in 0..n {
                let v = arg(i)?;
                if !v.is_null() {
                    return Ok(widen(v, *ty));
                }
            }
            Value::Null
        }
        Func::If(ty) => match arg(0)? {
            Value::Bool(true) => widen(arg(1)?, *ty),
            _ => widen(arg(2)?, *ty),
        },
        Func::NullIf => {
            let (a, b) = (arg(0)?, arg(1)?);
            if crate::values::equal(&a, &b) == Some(true) {
                Value::Null
            } else {
                a
            }
        }
        Func::FloatText => match arg(0)? {
            Value::Double(d) => Value::str(&lowwater_core::text::java_float(d as f32)),
            Value::Int(i) => Value::str(&lowwater_core::text::java_float(i as f32)),
            v => v,
        },
        Func::Time(t) => crate::temporal::eval(t, arg(0)?),
        Func::Round(r) => crate::numeric::eval(*r, arg(0)?, arg(1)?),
        Func::Regex(r) => {
            let vals = (0..n)
                .map(&arg)
                .collect::<std::result::Result<Vec<_>, _>>()?;
            crate::regex_fns::eval(r, &vals)
        }
        Func::Try => arg(0).unwrap_or(Value::Null),
        Func::Json(j) => crate::json_fns::eval(j, &arg(0)?)?,
        Func::Date(d) => crate::dates::eval(d, arg(0)?)?,
        Func::DecArith(op, p, s) => crate::decimal::arith(*op, (*p, *s), &arg(0)?, &arg(1)?)?,
        Func::Power => match (arg(0)?.as_f64(), arg(1)?.as_f64()) {
            (Some(a), Some(b)) => Value::Double(a.powf(b)),
            _ => Value::Null,
        },
        Func::Abs => match arg(0)? {
            Value::Int(i) => Value::Int(i.wrapping_abs()),
            Value::Double(d) => Value::Double(d.abs()),
            ref v @ Value::Decimal(..) => match v.as_decimal() {
                Some((u, s)) => Value::decimal(u.abs(), s),
                None => Value::Null,
            },
            v => v,
        },
        Func::Mod(ty) => match (arg(0)?, arg(1)?) {
            (Value::Int(_), Value::Int(0)) => return Err("MOD by zero".into()),
            (Value::Int(a), Value::Int(b)) => Value::Int(ty.wrap(a.wrapping_rem(b))),
            _ => Value::Null,
        },
        Func::Case(simple, ty) => {
            let (op, mut i) = if *simple {
                (Some(arg(0)?), 1)
            } else {
                (None, 0)
            };
            while i + 1 < n {
                let c = arg(i)?;
                let hit = match &op {
                    Some(o) => crate::values::equal(o, &c) == Some(true),
                    None => c == Value::Bool(true),
                };
                if hit {
                    return Ok(widen(arg(i + 1)?, *ty));
                }
                i += 2;
            }
            widen(arg(n - 1)?, *ty)
        }
        Func::Like(negated, esc) => match (arg(0)?, arg(1)?) {
            (Value::Str(s), Value::Str(p)) => Value::Bool(like(&s, &p, *esc)? != *negated),
            _ => Value::Null,
        },
        Func::In(negated) => {
            let a = arg(0)?;
            if a.is_null() {
                return Ok(Value::Null);
            }
            let mut saw_null = false;
            for i in 1..n {
                match crate::values::equal(&a, &arg(i)?) {
                    Some(true) => return Ok(Value::Bool(!negated)),
                    None => saw_null = true,
                    Some(false) => {}
                }
            }
            if saw_null {
                Value::Null
            } else {
                Value::Bool(*negated)
            }
        }
        Func::Between(negated) => {
            let (a, lo, hi) = (arg(0)?, arg(1)?, arg(2)?);
            let ge = crate::values::order(&a, &lo).map(|o| o.is_ge());
            let le = crate::values::order(&a, &hi).map(|o| o.is_le());
            match (ge, le) {
                (Some(false), _) | (_, Some(false)) => Value::Bool(*negated),
                (Some(true), Some(true)) => Value::Bool(!negated),
                _ => Value::Null,
            }
        }
        Func::DistinctFrom(not) => {
            let (a, b) = (arg(0)?, arg(1)?);
            let same = match (a.is_null(), b.is_null()) {
                (true, true) => true,
                (true, false) | (false, true) => false,
                _ => crate::values::equal(&a, &b) == Some(true),
            };
            Value::Bool(same == *not)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::like;

    #[test]
    fn like_patterns() {
        let l = |s: &str, p: &str, e: Option<char>| like(s, p, e).expect("a valid pattern");
        assert!(l("/p/12", "/p/%", None));
        assert!(l("abc", "a_c", None));
        assert!(!l("abc", "a_", None));
        assert!(l("a%c", "a!%c", Some('!')));
        assert!(!l("abc", "a!%c", Some('!')));
        assert!(l("ümlaut", "_mlaut", None));
        assert!(l("", "%", None));
        assert!(l("aXbXc", "%b%c", None));
        assert!(like("a", "a!", Some('!')).is_err());
        assert!(like("a", "!a", Some('!')).is_err());
    }
}
