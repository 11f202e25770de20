//! A job file as the SQL Gateway takes it: one statement per request, in
//! the file's own text (the gateway parses it with Flink's parser, so
//! nothing is re-rendered), and every INSERT of the file in one statement
//! set, because lowwater runs every INSERT of a file as one job and Flink
//! runs each bare INSERT as a job of its own.

/// The statements of `sql`, each without its `;`, comments and blank
/// space around it kept out. Quotes (`'…'` with `''`, `"…"`, `` `…` ``)
/// and comments (`-- …`, `/* … */`) may hold `;`.
pub fn split(sql: &str) -> Vec<String> {
    split_lines(sql).into_iter().map(|(_, s)| s).collect()
}

/// [`split`], each statement with the line it starts on (1-based).
pub fn split_lines(sql: &str) -> Vec<(usize, String)> {
    let c: Vec<char> = sql.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    let (mut line, mut start) = (1, None);
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        let next = c.get(i + 1).copied();
        if ch == '\n' {
            line += 1;
        }
        match ch {
            '\'' | '"' | '`' => {
                start.get_or_insert(line);
                cur.push(ch);
                i += 1;
                while i < c.len() {
                    cur.push(c[i]);
                    if c[i] == '\n' {
                        line += 1;
                    }
                    if c[i] == ch {
                        // A doubled quote is the quote itself.
                        if c.get(i + 1) == Some(&ch) {
                            cur.push(ch);
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
            }
            '-' if next == Some('-') => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            // A hint (`/*+ OPTIONS(...) */`) is SQL: kept as written.
            '/' if next == Some('*') && c.get(i + 2) == Some(&'+') => {
                start.get_or_insert(line);
                while i < c.len() {
                    cur.push(c[i]);
                    if c[i] == '\n' {
                        line += 1;
                    }
                    if c[i] == '/' && cur.ends_with("*/") && cur.len() > 3 {
                        break;
                    }
                    i += 1;
                }
            }
            '/' if next == Some('*') => {
                i += 2;
                while i < c.len() && !(c[i] == '*' && c.get(i + 1) == Some(&'/')) {
                    if c[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
                cur.push(' ');
                i += 1;
            }
            ';' => {
                push(&mut out, &mut cur, start.take());
            }
            _ => {
                if !ch.is_whitespace() {
                    start.get_or_insert(line);
                }
                cur.push(ch);
            }
        }
        i += 1;
    }
    push(&mut out, &mut cur, start);
    out
}

fn push(out: &mut Vec<(usize, String)>, cur: &mut String, start: Option<usize>) {
    let s = cur.trim();
    if !s.is_empty() {
        out.push((start.unwrap_or(1), s.to_string()));
    }
    cur.clear();
}

fn words(s: &str, n: usize) -> String {
    s.split_whitespace()
        .take(n)
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_uppercase()
}

/// `s` after its first `n` words, as written.
fn after_words(s: &str, n: usize) -> &str {
    let mut rest = s.trim_start();
    for _ in 0..n {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        rest = rest[end..].trim_start();
    }
    rest
}

/// The statements to send: the file's, with its INSERTs (bare, or inside
/// `BEGIN STATEMENT SET; … END;` or `EXECUTE STATEMENT SET BEGIN … END;`)
/// gathered into one `EXECUTE STATEMENT SET BEGIN … END`, last; a single
/// INSERT is sent as it is.
pub fn for_gateway(sql: &str) -> Vec<(usize, String)> {
    let mut other = Vec::new();
    let mut inserts: Vec<(usize, String)> = Vec::new();
    for (line, st) in split_lines(sql) {
        let head = words(&st, 4);
        if head == "BEGIN STATEMENT SET" || head == "END" {
            continue;
        }
        if head.starts_with("EXECUTE STATEMENT SET BEGIN") {
            inserts.push((line, after_words(&st, 4).to_string()));
            continue;
        }
        if head.starts_with("INSERT ") {
            inserts.push((line, st));
        } else {
            other.push((line, st));
        }
    }
    match inserts.len() {
        0 => {}
        1 => other.extend(inserts),
        _ => other.push((
            inserts[0].0,
            format!(
                "EXECUTE STATEMENT SET BEGIN\n{};\nEND",
                inserts
                    .iter()
                    .map(|(_, s)| s.as_str())
                    .collect::<Vec<_>>()
                    .join(";\n")
            ),
        )),
    }
    other
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_are_kept_and_comments_dropped() {
        let sql = "SELECT /*+ OPTIONS('scan.startup.mode'='latest-offset') */ a /* no; */ FROM t;";
        assert_eq!(
            split(sql),
            vec![
                "SELECT /*+ OPTIONS('scan.startup.mode'='latest-offset') */ a   FROM t".to_string()
            ]
        );
    }

    #[test]
    fn statements_keep_the_line_they_start_on() {
        let sql = "-- header\n\nSET 'a' = 'b';\n/* two\nlines */ CREATE TABLE t (\n s STRING\n);";
        let lines: Vec<usize> = split_lines(sql).iter().map(|(l, _)| *l).collect();
        assert_eq!(lines, vec![3, 5]);
    }

    #[test]
    fn splits_on_semicolons_outside_quotes_and_comments() {
        let sql = "SET 'a' = 'x;y'; -- a comment; with one\n\
                   CREATE TABLE `t;1` (s STRING) WITH ('k' = 'it''s;') /* ; */;\n\n;";
        assert_eq!(
            split(sql),
            vec![
                "SET 'a' = 'x;y'".to_string(),
                "CREATE TABLE `t;1` (s STRING) WITH ('k' = 'it''s;')".to_string(),
            ]
        );
    }

    #[test]
    fn several_inserts_become_one_statement_set_and_one_stays_as_it_is() {
        let two = "SET 'p' = '1';\nINSERT INTO a SELECT 1;\nINSERT INTO b SELECT 2;\n";
        assert_eq!(
            for_gateway(two),
            vec![
                (1, "SET 'p' = '1'".to_string()),
                (
                    2,
                    "EXECUTE STATEMENT SET BEGIN\nINSERT INTO a SELECT 1;\nINSERT INTO b SELECT 2;\nEND"
                        .to_string()
                ),
            ]
        );
        let wrapped = "BEGIN STATEMENT SET;\nINSERT INTO a SELECT 1;\nEND;";
        assert_eq!(
            for_gateway(wrapped),
            vec![(2, "INSERT INTO a SELECT 1".to_string())]
        );
        let exec = "EXECUTE STATEMENT SET BEGIN\n  INSERT INTO a SELECT '  two  spaces';\nEND;";
        assert_eq!(
            for_gateway(exec),
            vec![(1, "INSERT INTO a SELECT '  two  spaces'".to_string())]
        );
    }
}
