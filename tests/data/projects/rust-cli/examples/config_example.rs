// An example of loading a config and handling its errors.
fn main() {
    let config = std::fs::read_to_string("logjam.toml");
    match config {
        Ok(text) => println!("config: {text}"),
        Err(error) => eprintln!("config error: {error}"),
    }
}
