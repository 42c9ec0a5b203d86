//! The shell lexer and command classifier on any text: no panic, and a
//! command that starts with a denied command word is never allowed,
//! whatever follows it.
#![no_main]

use brood::event::Decision;
use brood::policy::classify_command;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = classify_command(text);
    for denied in ["sudo ", "mkfs ", "shutdown "] {
        let command = format!("{denied}{text}");
        let verdict = classify_command(&command);
        assert!(
            verdict.decision != Decision::Allow,
            "{command:?} was allowed: {}",
            verdict.reason
        );
    }
});
