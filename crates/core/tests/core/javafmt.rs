//! `Double.toString` and `Float.toString` exactly as Java 17 prints them:
//! 1,229 conversions made by Java 17 (`data/java17_to_string.txt`: special
//! values, random bits, whole numbers, short decimals, floats, powers of
//! two) are reproduced digit for digit.

use lowwater_core::text::{java_double, java_float};

#[test]
fn every_java17_conversion_is_reproduced() {
    let text = include_str!("data/java17_to_string.txt");
    let mut n = 0;
    let mut wrong = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let mut it = line.split(' ');
        let (Some(bits), Some(d), Some(f)) = (it.next(), it.next(), it.next()) else {
            panic!("bad fixture line: {line}");
        };
        let x = f64::from_bits(u64::from_str_radix(bits, 16).expect("hex bits"));
        n += 1;
        if java_double(x) != d {
            wrong.push(format!(
                "double {bits}: Java {d}, lowwater {}",
                java_double(x)
            ));
        }
        if java_float(x as f32) != f {
            wrong.push(format!(
                "float of {bits}: Java {f}, lowwater {}",
                java_float(x as f32)
            ));
        }
    }
    assert!(n > 1_200, "the fixture has its lines: {n}");
    assert!(
        wrong.is_empty(),
        "{} of {n}:\n{}",
        wrong.len(),
        wrong[..wrong.len().min(20)].join("\n")
    );
}

#[test]
fn the_cases_that_differ_from_the_shortest_digits() {
    // A whole number prints its exact digits, a tie goes to the even digit,
    // and floats print what Java 17 prints.
    assert_eq!(
        java_double(2.085_114_699_541_001e17),
        "2.08511469954100096E17"
    );
    assert_eq!(
        java_double(1.064_197_440_175_781_2e8),
        "1.0641974401757812E8"
    );
    assert_eq!(java_float(9.193_278e15), "9.1932776E15");
    assert_eq!(java_float(-1_310_492.3), "-1310492.2");
    assert_eq!(java_double(0.001), "0.001");
    assert_eq!(java_double(1e7), "1.0E7");
    assert_eq!(java_double(-0.0), "-0.0");
    assert_eq!(java_double(f64::MIN_POSITIVE * f64::EPSILON), "4.9E-324");
}
