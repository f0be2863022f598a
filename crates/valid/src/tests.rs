use alloc::string::ToString;
use alloc::vec::Vec;

use super::*;

#[test]
fn a_board_id_is_bounded_text_without_control_characters() {
    for good in ["qemu-mps2-an386", "lab-1/serial:/dev/serial/by-id/usb-ST_STLINK-V3-if02", "native:höst"] {
        assert_eq!(BoardId::new(good).map(|id| id.into_string()), Ok(good.to_string()));
    }
    let longest: String = core::iter::repeat_n('x', MAX_BOARD_ID_LEN).collect();
    assert!(BoardId::new(longest.clone()).is_ok());
    assert_eq!(BoardId::new(longest + "x"), Err(BoardIdError::Length(MAX_BOARD_ID_LEN + 1)));
    assert_eq!(BoardId::new(""), Err(BoardIdError::Length(0)));
    for bad in ["a\nb", "tab\there", "nul\0", "board-1\u{202E}", "zero\u{200B}width", "c1\u{85}"] {
        assert!(matches!(BoardId::new(bad), Err(BoardIdError::Characters(_))), "{bad:?}");
    }
}

#[test]
fn a_host_name_is_what_reads_alike_in_a_url_an_id_and_a_log() {
    for good in ["lab-1", "bench_2.example.org", "H"] {
        assert!(HostName::new(good).is_ok(), "{good:?}");
    }
    let too_long: String = core::iter::repeat_n('h', MAX_HOST_LEN + 1).collect();
    assert_eq!(HostName::new(too_long), Err(HostNameError::Length));
    assert_eq!(HostName::new(""), Err(HostNameError::Length));
    for bad in ["lab 1", "lab/1", "läb", "a:b"] {
        assert_eq!(HostName::new(bad), Err(HostNameError::Characters(bad.into())), "{bad:?}");
    }
}

#[test]
fn invalid_names_are_refused_as_they_are_deserialised_with_the_reason() {
    let id: BoardId = serde_json::from_str("\"qemu-mps2-an386\"").unwrap();
    assert_eq!(id, "qemu-mps2-an386");
    assert_eq!(serde_json::to_string(&id).unwrap(), "\"qemu-mps2-an386\"");
    let refused = serde_json::from_str::<BoardId>("\"a\\u0007b\"").unwrap_err().to_string();
    assert!(refused.contains("a control character (U+0007) at byte 1"), "{refused}");
    let refused = serde_json::from_str::<Vec<HostName>>("[\"ok\", \"not ok\"]").unwrap_err().to_string();
    assert!(refused.contains("only letters"), "{refused}");
}

#[test]
fn a_label_refuses_what_would_make_it_read_other_than_it_is() {
    for good in
        ["firmware opt-s, libcrux-ml-kem 0.0.11", "Mozilla/5.0 (X11; Linux x86_64)", "测试板 ✓ 👩", "a"]
    {
        assert_eq!(check_label(good, 64), Ok(()), "{good:?}");
    }
    let refused = |text: &str| check_label(text, 64).map_err(|e| e.to_string());
    assert_eq!(refused(""), Err("is empty".to_string()));
    assert_eq!(refused(&"x".repeat(65)), Err("is 65 bytes, more than 64".to_string()));
    for (text, kind) in [
        ("a\u{1}b", Forbidden::Control),
        ("del\u{7F}", Forbidden::Control),
        ("c1\u{9B}", Forbidden::Control),
        ("evil\u{202E}gnp.exe", Forbidden::Bidi),
        ("iso\u{2066}late", Forbidden::Bidi),
        ("mark\u{200F}", Forbidden::Bidi),
        ("zero\u{200B}width", Forbidden::Invisible),
        ("join\u{200D}er", Forbidden::Invisible),
        ("\u{FEFF}bom", Forbidden::Invisible),
        ("soft\u{AD}hyphen", Forbidden::Invisible),
        ("tag\u{E0041}", Forbidden::Invisible),
        ("line\u{2028}sep", Forbidden::LineBreak),
        ("non\u{FFFE}", Forbidden::Noncharacter),
        ("non\u{FFFF}", Forbidden::Noncharacter),
        ("non\u{FDD0}", Forbidden::Noncharacter),
        ("non\u{10FFFF}", Forbidden::Noncharacter),
    ] {
        match check_label(text, 64) {
            Err(LabelError::Holds { kind: found, .. }) => assert_eq!(found, kind, "{text:?}"),
            other => panic!("{text:?} gave {other:?}"),
        }
    }
    assert_eq!(
        refused("ok\u{202E}"),
        Err("holds a bidirectional control (U+202E) at byte 2".to_string()),
        "the message names the character by code point, as it may not show"
    );
}

#[test]
fn every_character_a_label_takes_is_an_xml_1_0_character() {
    // XML 1.0's Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].
    let xml = |c: u32| matches!(c, 0x9 | 0xA | 0xD | 0x20..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10FFFF);
    let taken = (0..=0x10FFFF).filter_map(char::from_u32).filter(|&c| forbidden(c).is_none());
    let strays: Vec<u32> = taken.map(|c| c as u32).filter(|&c| !xml(c)).collect();
    assert!(strays.is_empty(), "labels take non-XML characters: {strays:x?}");
}
