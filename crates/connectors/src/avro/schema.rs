//! Avro schemas, parsed from their JSON form into a tree the decoder and
//! encoder walk: primitives with their logical types, records, enums,
//! arrays, maps, unions and fixed, with named types referenced by index
//! (so that recursive schemas are finite). The Avro specification's rules
//! are checked: names resolve (full names, or short names in the enclosing
//! namespace), record fields are unique, unions hold no union directly and
//! no two branches of the same unnamed type.

use sonic_rs::{JsonContainerTrait, JsonValueTrait};

/// A logical type on `int`, `long`, `bytes` or `fixed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Logical {
    /// None (or one this reader does not know, which Avro says to ignore).
    None,
    /// `date` (days since the epoch, on int).
    Date,
    /// `time-millis` (int) / `time-micros` (long).
    Time,
    /// `timestamp-millis` (long): an instant, in milliseconds.
    TimestampMillis,
    /// `timestamp-micros` (long): an instant, in microseconds.
    TimestampMicros,
    /// `timestamp-nanos` (long): an instant, in nanoseconds.
    TimestampNanos,
    /// `local-timestamp-millis` (long): a wall-clock time, milliseconds.
    LocalTimestampMillis,
    /// `local-timestamp-micros` (long): a wall-clock time, microseconds.
    LocalTimestampMicros,
    /// `decimal` (bytes or fixed) with this scale.
    Decimal(u32),
}

/// One schema node.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// `null`.
    Null,
    /// `boolean`.
    Boolean,
    /// `int` (zig-zag varint, 32 bits).
    Int(Logical),
    /// `long` (zig-zag varint, 64 bits).
    Long(Logical),
    /// `float` (4 bytes LE).
    Float,
    /// `double` (8 bytes LE).
    Double,
    /// `bytes` (length-prefixed).
    Bytes(Logical),
    /// `string` (length-prefixed UTF-8).
    String,
    /// A named type: index into [`Schema::named`].
    Named(usize),
    /// `array` of items.
    Array(Box<Node>),
    /// `map` of string to values.
    Map(Box<Node>),
    /// A union of branches, selected by a varint index.
    Union(Vec<Node>),
}

/// A named type.
#[derive(Debug, Clone, PartialEq)]
pub enum NamedKind {
    /// `record` (or `error`).
    Record(Vec<Field>),
    /// `enum` with its symbols.
    Enum(Vec<String>),
    /// `fixed` of this many bytes.
    Fixed(usize, Logical),
    /// Being parsed (a reference to it is recursion, which is fine).
    Pending,
}

/// A named type with its full name.
#[derive(Debug, Clone, PartialEq)]
pub struct Named {
    /// Full name (`namespace.name`).
    pub name: String,
    /// What it is.
    pub kind: NamedKind,
}

/// A record field.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Name.
    pub name: String,
    /// Type.
    pub node: Node,
    /// The default, as JSON text (for a reader field the writer lacks).
    pub default: Option<String>,
}

/// A parsed schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    /// The top-level node.
    pub root: Node,
    /// Named types.
    pub named: Vec<Named>,
}

impl Schema {
    /// Parses a schema from its JSON text.
    pub fn parse(text: &str) -> Result<Schema, String> {
        let v: sonic_rs::Value =
            sonic_rs::from_str(text).map_err(|e| format!("the schema is not JSON: {e}"))?;
        let mut s = Schema {
            root: Node::Null,
            named: Vec::new(),
        };
        s.root = s.node(&v, "", 0)?;
        Ok(s)
    }

    /// The fields of the top-level record, if it is one.
    pub fn record_fields(&self) -> Option<&[Field]> {
        self.fields(&self.root)
    }

    /// The fields of `node` if it is a record.
    pub fn fields<'a>(&'a self, node: &Node) -> Option<&'a [Field]> {
        match node {
            Node::Named(i) => match &self.named[*i].kind {
                NamedKind::Record(f) => Some(f),
                _ => None,
            },
            _ => None,
        }
    }

    fn lookup(&self, name: &str, ns: &str) -> Option<usize> {
        let full = if name.contains('.') || ns.is_empty() {
            name.to_string()
        } else {
            format!("{ns}.{name}")
        };
        self.named
            .iter()
            .position(|n| n.name == full)
            .or_else(|| self.named.iter().position(|n| n.name == name))
    }

    fn node(&mut self, v: &sonic_rs::Value, ns: &str, depth: usize) -> Result<Node, String> {
        if depth > 64 {
            return Err("the schema nests deeper than 64 levels".into());
        }
        if let Some(name) = v.as_str() {
            return self.by_name(name, ns, Logical::None);
        }
        if let Some(arr) = v.as_array() {
            let mut branches = Vec::with_capacity(arr.len());
            for b in arr.iter() {
                let n = self.node(b, ns, depth + 1)?;
                if matches!(n, Node::Union(_)) {
                    return Err("a union directly inside a union is not allowed".into());
                }
                if !matches!(n, Node::Named(_)) && branches.contains(&n) {
                    return Err(format!("the union has two branches of type {n:?}"));
                }
                branches.push(n);
            }
            if branches.is_empty() {
                return Err("an empty union".into());
            }
            return Ok(Node::Union(branches));
        }
        let Some(obj) = v.as_object() else {
            return Err(format!("not a schema: {}", v.as_raw_str_lossy()));
        };
        let get = |k: &str| obj.get(&k);
        let ty = get("type").ok_or("a schema object without \"type\"")?;
        let logical = logical(get("logicalType").and_then(|l| l.as_str()), get("scale"));
        let Some(ty_name) = ty.as_str() else {
            // {"type": {...}} or {"type": [...]}: the inner schema.
            return self.node(ty, ns, depth + 1);
        };
        match ty_name {
            "record" | "error" | "enum" | "fixed" => {}
            "array" => {
                let items = get("items").ok_or("an array without \"items\"")?;
                return Ok(Node::Array(Box::new(self.node(items, ns, depth + 1)?)));
            }
            "map" => {
                let values = get("values").ok_or("a map without \"values\"")?;
                return Ok(Node::Map(Box::new(self.node(values, ns, depth + 1)?)));
            }
            other => return self.by_name(other, ns, logical),
        }
        let name = get("name")
            .and_then(|n| n.as_str())
            .ok_or_else(|| format!("a {ty_name} without a \"name\""))?;
        let own_ns = get("namespace").and_then(|n| n.as_str());
        let full = if name.contains('.') {
            name.to_string()
        } else {
            match own_ns.unwrap_or(ns) {
                "" => name.to_string(),
                n => format!("{n}.{name}"),
            }
        };
        if self.named.iter().any(|n| n.name == full) {
            return Err(format!("the type {full} is defined twice"));
        }
        let inner_ns = full.rsplit_once('.').map_or("", |(n, _)| n).to_string();
        let idx = self.named.len();
        self.named.push(Named {
            name: full.clone(),
            kind: NamedKind::Pending,
        });
        let kind = match ty_name {
            "enum" => {
                let symbols = get("symbols")
                    .and_then(|s| s.as_array())
                    .ok_or_else(|| format!("the enum {full} has no \"symbols\""))?;
                NamedKind::Enum(
                    symbols
                        .iter()
                        .map(|s| s.as_str().map(str::to_string))
                        .collect::<Option<Vec<_>>>()
                        .ok_or_else(|| {
                            format!("the enum {full} has a symbol that is not a string")
                        })?,
                )
            }
            "fixed" => {
                let size = get("size")
                    .and_then(|s| s.as_u64())
                    .ok_or_else(|| format!("the fixed {full} has no \"size\""))?;
                NamedKind::Fixed(size as usize, logical)
            }
            _ => {
                let fields = get("fields")
                    .and_then(|f| f.as_array())
                    .ok_or_else(|| format!("the record {full} has no \"fields\" array"))?;
                let mut out: Vec<Field> = Vec::with_capacity(fields.len());
                for f in fields.iter() {
                    let fname = f
                        .get("name")
                        .and_then(|n| n.as_str())
                        .ok_or_else(|| format!("a field of {full} has no \"name\""))?;
                    if out.iter().any(|o| o.name == fname) {
                        return Err(format!("the record {full} has two fields named {fname}"));
                    }
                    let fty = f
                        .get("type")
                        .ok_or_else(|| format!("the field {full}.{fname} has no \"type\""))?;
                    out.push(Field {
                        name: fname.to_string(),
                        node: self.node(fty, &inner_ns, depth + 1)?,
                        default: f.get("default").map(|d| d.as_raw_str_lossy().to_string()),
                    });
                }
                NamedKind::Record(out)
            }
        };
        self.named[idx].kind = kind;
        Ok(Node::Named(idx))
    }

    fn by_name(&mut self, name: &str, ns: &str, logical: Logical) -> Result<Node, String> {
        Ok(match name {
            "null" => Node::Null,
            "boolean" => Node::Boolean,
            "int" => Node::Int(logical),
            "long" => Node::Long(logical),
            "float" => Node::Float,
            "double" => Node::Double,
            "bytes" => Node::Bytes(logical),
            "string" => Node::String,
            other => Node::Named(
                self.lookup(other, ns)
                    .ok_or_else(|| format!("unknown type name '{other}'"))?,
            ),
        })
    }
}

trait Lossy {
    fn as_raw_str_lossy(&self) -> String;
}

impl Lossy for sonic_rs::Value {
    fn as_raw_str_lossy(&self) -> String {
        sonic_rs::to_string(self).unwrap_or_default()
    }
}

fn logical(name: Option<&str>, scale: Option<&sonic_rs::Value>) -> Logical {
    match name {
        Some("date") => Logical::Date,
        Some("time-millis") | Some("time-micros") => Logical::Time,
        Some("timestamp-millis") => Logical::TimestampMillis,
        Some("timestamp-micros") => Logical::TimestampMicros,
        Some("timestamp-nanos") => Logical::TimestampNanos,
        Some("local-timestamp-millis") => Logical::LocalTimestampMillis,
        Some("local-timestamp-micros") => Logical::LocalTimestampMicros,
        Some("decimal") => Logical::Decimal(scale.and_then(|s| s.as_u64()).unwrap_or(0) as u32),
        _ => Logical::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_records_unions_logical_types_and_references() {
        let s = Schema::parse(
            r#"{"type":"record","name":"Click","namespace":"shop","fields":[
                {"name":"user","type":"string"},
                {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
                {"name":"region","type":["null","string"],"default":null},
                {"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B"]}},
                {"name":"again","type":["null","Kind"]},
                {"name":"next","type":["null","shop.Click"]},
                {"name":"tags","type":{"type":"array","items":"string"}}]}"#,
        )
        .expect("parses");
        let f = s.record_fields().expect("a record");
        assert_eq!(f.len(), 7);
        assert_eq!(f[1].node, Node::Long(Logical::TimestampMillis));
        assert_eq!(f[2].node, Node::Union(vec![Node::Null, Node::String]));
        assert_eq!(f[2].default.as_deref(), Some("null"));
        assert_eq!(f[4].node, Node::Union(vec![Node::Null, Node::Named(1)]));
        assert_eq!(f[5].node, Node::Union(vec![Node::Null, Node::Named(0)]));
        assert_eq!(s.named[1].name, "shop.Kind");
    }

    #[test]
    fn bad_schemas_say_what_is_wrong() {
        for (text, want) in [
            ("{", "not JSON"),
            (
                r#"{"type":"record","name":"r","fields":[{"name":"a","type":"nope"}]}"#,
                "unknown type name 'nope'",
            ),
            (r#"["int","int"]"#, "two branches"),
            (r#"["int",["string"]]"#, "union directly inside a union"),
            (
                r#"{"type":"record","name":"r","fields":[{"name":"a","type":"int"},{"name":"a","type":"int"}]}"#,
                "two fields named a",
            ),
            (r#"{"type":"fixed","name":"f"}"#, "no \"size\""),
        ] {
            let e = Schema::parse(text).expect_err(text);
            assert!(e.contains(want), "{text}: {e}");
        }
    }
}
