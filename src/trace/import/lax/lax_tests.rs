use super::*;

fields! {
    struct Probe<'a> {
        "name" => name: Text<'a>,
        "on" => on: Flag,
        "n" => n: Count,
        "at" => at: Stamp<'a>,
        "inner" => inner: Obj<Box<Probe<'a>>>,
        "list" => list: List<Probe<'a>>,
    }
}

#[test]
fn named_fields_are_read_and_the_rest_scanned_past() {
    let line = br#"{"skip":{"deep":[1,{"x":"y"}]},"name":"a","on":true,"n":"12","at":"2025-01-02T03:04:05Z","inner":{"name":"b","n":3.9},"list":[{"name":"c"},5,"s",{"name":"d"}]}"#;
    let probe: Probe = object(line).unwrap();
    assert_eq!(probe.name.get(), Some("a"));
    assert!(probe.on.0);
    assert_eq!(probe.n.0, Some(12));
    assert_eq!(probe.at.ms(), Some(1_735_787_045_000));
    assert_eq!(probe.at.text(), Some("2025-01-02T03:04:05Z"));
    let inner = probe.inner.get().unwrap();
    assert_eq!((inner.name.get(), inner.n.0), (Some("b"), Some(3)));
    let names: Vec<_> = probe.list.0.iter().map(|p| p.name.get()).collect();
    assert_eq!(names, [Some("c"), Some("d")]);
}

#[test]
fn a_field_of_another_type_is_absent_not_an_error() {
    let line = br#"{"name":7,"on":"yes","n":-4,"at":[1],"inner":"text","list":{"a":1}}"#;
    let probe: Probe = object(line).unwrap();
    assert_eq!(probe.name.get(), None);
    assert!(!probe.on.0);
    assert_eq!(probe.n.0, None);
    assert!(!probe.at.is_some());
    assert!(probe.inner.get().is_none());
    assert!(probe.list.0.is_empty());
}

#[test]
fn text_with_escapes_is_read_whole_and_a_repeated_key_keeps_its_last_value() {
    let probe: Probe = object(br#"{"name":"x","name":"a\"b\u00e9"}"#).unwrap();
    assert_eq!(probe.name.get(), Some("a\"bé"));
}

#[test]
fn a_line_that_is_no_object_or_no_json_is_an_error() {
    for bad in [&b"[1,2]"[..], b"\"s\"", b"{\"name\":", b"{} trailing"] {
        let err = object::<Probe>(bad).map(|_| ()).unwrap_err();
        assert!(!err.to_string().is_empty());
    }
    let err = object::<Probe>(b"[1]").map(|_| ()).unwrap_err();
    assert!(err.to_string().contains("not a JSON object"), "{err}");
}

#[test]
fn numbers_as_times_are_seconds_or_milliseconds() {
    let probe: Probe = object(br#"{"at":1700000000}"#).unwrap();
    assert_eq!(probe.at.ms(), Some(1_700_000_000_000));
    let probe: Probe = object(br#"{"at":1700000000123}"#).unwrap();
    assert_eq!(probe.at.ms(), Some(1_700_000_000_123));
}
