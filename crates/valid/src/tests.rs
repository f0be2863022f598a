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
    for bad in ["a\nb", "tab\there", "nul\0"] {
        assert_eq!(BoardId::new(bad), Err(BoardIdError::Control), "{bad:?}");
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
    assert!(refused.contains("control characters"), "{refused}");
    let refused = serde_json::from_str::<Vec<HostName>>("[\"ok\", \"not ok\"]").unwrap_err().to_string();
    assert!(refused.contains("only letters"), "{refused}");
}
