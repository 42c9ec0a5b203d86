use super::*;

#[test]
fn the_split_round_trips_and_other_keys_stay() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("brood").join(WORKBENCH_FILE);
    assert_eq!(load(&path), Remembered::default(), "no file: the defaults");
    std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
    std::fs::write(&path, "theme = \"light\"\nsplit = 40\n").expect("write");
    assert_eq!(load(&path).split, Some(40));
    save(&path, &Remembered { split: Some(55) }).expect("save");
    assert_eq!(load(&path), Remembered { split: Some(55) });
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.contains("theme = \"light\""), "{text}");
    assert!(text.starts_with("# "), "{text}");
    save(&path, &Remembered { split: None }).expect("save");
    assert_eq!(load(&path).split, None);
}

#[test]
fn a_broken_or_odd_file_is_the_defaults() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(WORKBENCH_FILE);
    for text in [
        "split = ",
        "split = \"wide\"",
        "split = 0",
        "split = 250",
        "split = -5",
    ] {
        std::fs::write(&path, text).expect("write");
        assert_eq!(load(&path).split, None, "{text}");
    }
    // A broken file is replaced by a good one.
    save(&path, &Remembered { split: Some(60) }).expect("save");
    assert_eq!(load(&path).split, Some(60));
}
