// Benchmarks of parse_line; run with `cargo bench`.
fn main() {
    let line = r#"1.2.3.4 - - [01/Jan/2026] "GET /index.html HTTP/1.1" 200 512 12"#;
    let start = std::time::Instant::now();
    for _ in 0..100_000 {
        std::hint::black_box(line.split('"').count());
    }
    println!("main bench: {:?}", start.elapsed());
}
