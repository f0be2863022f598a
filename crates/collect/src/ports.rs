//! Boards on a serial port: which ports to try, what answers on them, and
//! which debug probe sits on the same ST-LINK.
//!
//! A port is tried on its own when it is an ST-LINK's virtual COM port (by
//! its USB vendor and product, or by the name udev gives it under
//! `/dev/serial/by-id/`); any other port only when the user names it
//! (`--serial PATH`, or `--serial PATH=BOARD`), as opening a port can upset
//! whatever is behind it. Serial enumeration has no hot-plug events, so
//! [`crate::boards::Boards::watch_ports`] scans again every second.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use pqbench_boards::Board as CatalogueBoard;
use pqbench_wire::{Command, Decoder, Event, Hello, Record};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_serial::SerialPortBuilderExt;

/// Where udev puts a stable name for each USB serial port.
pub const BY_ID: &str = "/dev/serial/by-id";

/// STMicroelectronics' USB vendor id.
pub const ST_VENDOR: u16 = 0x0483;

/// ST-LINK product ids, as probe-rs knows them (its `stlink::usb_interface`),
/// with the generation each is. Every one since the V2-1 has a virtual COM
/// port on the same USB device as the probe.
pub const STLINK_PRODUCTS: &[(u16, &str)] = &[
    (0x3748, "ST-LINK/V2"),
    (0x374b, "ST-LINK/V2-1"),
    (0x374a, "ST-LINK/V2-1"),
    (0x3742, "ST-LINK/V2-1"),
    (0x3752, "ST-LINK/V2-1"),
    (0x374e, "STLINK-V3"),
    (0x374f, "STLINK-V3"),
    (0x3753, "STLINK-V3"),
    (0x3754, "STLINK-V3"),
    (0x3757, "STLINK-V3PWR"),
];

/// The prefix of a serial board's id; the rest is its USB serial number,
/// or its path when it has none.
pub const SERIAL_PREFIX: &str = "serial:";

/// What USB says of a port's device.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UsbIdentity {
    /// Unknown when read from a by-id name alone.
    pub vid: Option<u16>,
    pub pid: Option<u16>,
    pub serial_number: Option<String>,
    pub manufacturer: Option<String>,
    pub product: Option<String>,
}

impl UsbIdentity {
    /// An ST-LINK's virtual COM port: by its ids, or, where only udev's
    /// name is known, by ST's name and a product called ST-LINK.
    pub fn is_stlink(&self) -> bool {
        match (self.vid, self.pid) {
            (Some(vid), Some(pid)) => vid == ST_VENDOR && STLINK_PRODUCTS.iter().any(|&(p, _)| p == pid),
            _ => {
                let st = self.manufacturer.as_deref().is_some_and(|m| m.starts_with("STMicroelectronics"));
                let product =
                    self.product.as_deref().unwrap_or_default().to_ascii_lowercase().replace('-', "");
                st && product.contains("stlink")
            }
        }
    }

    /// udev's `/dev/serial/by-id/` name of a USB port:
    /// `usb-<manufacturer>_<product>_<serial>-if<NN>`, spaces as `_`
    /// (`usb-STMicroelectronics_STM32_STLink_066DFF555185754867044030-if02`).
    pub fn from_by_id_name(name: &str) -> Option<UsbIdentity> {
        let rest = name.strip_prefix("usb-")?;
        // The interface number (`-if02`), and after it what a driver adds
        // (`-port0`), are not part of the device's name.
        let interface = rest.match_indices("-if").map(|(at, _)| at).find(|&at| {
            rest.as_bytes().get(at + 3..at + 5).is_some_and(|digits| digits.iter().all(u8::is_ascii_hexdigit))
        });
        let rest = interface.map_or(rest, |at| &rest[..at]);
        let (vendor_and_product, serial) = rest.rsplit_once('_')?;
        let (manufacturer, product) = vendor_and_product.split_once('_').unwrap_or((vendor_and_product, ""));
        Some(UsbIdentity {
            vid: None,
            pid: None,
            serial_number: (!serial.is_empty()).then(|| serial.to_string()),
            manufacturer: Some(manufacturer.to_string()),
            product: Some(product.replace('_', " ")),
        })
    }
}

/// A port the user named, and the board they say is behind it.
#[derive(Debug, Clone)]
pub struct NamedPort {
    pub path: PathBuf,
    pub board: Option<&'static CatalogueBoard>,
}

impl NamedPort {
    /// `PATH` or `PATH=BOARD` (BOARD one of the catalogue's boards).
    pub fn parse(text: &str) -> Result<NamedPort, NamedPortError> {
        let (path, board) = match text.rsplit_once('=') {
            Some((path, board)) => {
                let found = CatalogueBoard::by_firmware(board.trim())
                    .ok_or_else(|| NamedPortError::UnknownBoard { text: text.into(), board: board.into() })?;
                (path, Some(found))
            }
            None => (text, None),
        };
        if path.trim().is_empty() {
            return Err(NamedPortError::NoPath(text.into()));
        }
        Ok(NamedPort { path: PathBuf::from(path.trim()), board })
    }
}

/// Why a `--serial` argument was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NamedPortError {
    #[error("--serial {text:?}: no board {board:?}; the boards are {}", catalogue_boards())]
    UnknownBoard { text: String, board: String },
    #[error("--serial {0:?}: expected PATH or PATH=BOARD")]
    NoPath(String),
}

fn catalogue_boards() -> String {
    let boards: Vec<_> = pqbench_boards::BOARDS.iter().map(|b| b.firmware).collect();
    boards.join(", ")
}

/// Where to look for ports.
#[derive(Debug, Clone)]
pub struct PortOptions {
    /// udev's stable names (`/dev/serial/by-id`); tests point it at a
    /// folder of links to pseudo-terminals.
    pub by_id: PathBuf,
    /// The OS's own list of serial devices (`/sys/class/tty`); off in tests,
    /// which see only their own links.
    pub system_ports: bool,
    pub named: Vec<NamedPort>,
}

impl Default for PortOptions {
    fn default() -> Self {
        PortOptions { by_id: PathBuf::from(BY_ID), system_ports: true, named: Vec::new() }
    }
}

/// A serial port to try, as found now.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundPort {
    /// What a run opens: the stable by-id link where there is one, so the
    /// board keeps its port when it comes back as another `ttyACM`.
    pub path: PathBuf,
    /// The device node the path leads to.
    pub device: PathBuf,
    pub usb: Option<UsbIdentity>,
    /// The user named this port (`--serial`), with the board they say is there.
    pub named: bool,
    pub named_board: Option<&'static str>,
}

impl FoundPort {
    /// `serial:<USB serial number>`, which follows the board from port to
    /// port; `serial:<path>` for a port without one.
    pub fn board_id(&self) -> String {
        match self.usb.as_ref().and_then(|usb| usb.serial_number.as_deref()) {
            Some(serial) => format!("{SERIAL_PREFIX}{serial}"),
            None => format!("{SERIAL_PREFIX}{}", self.path.display()),
        }
    }

    pub fn usb_serial(&self) -> Option<&str> {
        self.usb.as_ref()?.serial_number.as_deref()
    }
}

/// The ports to try now: every ST-LINK virtual COM port, and each named
/// port that exists. Reads the file system only (no port is opened).
pub fn scan(options: &PortOptions) -> Vec<FoundPort> {
    let system = if options.system_ports { system_ports() } else { BTreeMap::new() };
    let mut found: BTreeMap<PathBuf, FoundPort> = BTreeMap::new();
    // udev's names first: they are the paths that stay the same.
    for (link, device) in by_id_links(&options.by_id) {
        let name = link.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let usb = system.get(&device).cloned().flatten().or_else(|| UsbIdentity::from_by_id_name(&name));
        found.insert(device.clone(), FoundPort { path: link, device, usb, named: false, named_board: None });
    }
    for (device, usb) in system {
        found.entry(device.clone()).or_insert(FoundPort {
            path: device.clone(),
            device,
            usb,
            named: false,
            named_board: None,
        });
    }
    for named in &options.named {
        let Ok(device) = named.path.canonicalize() else { continue };
        let port = found.entry(device.clone()).or_insert(FoundPort {
            path: named.path.clone(),
            device,
            usb: None,
            named: false,
            named_board: None,
        });
        port.named = true;
        port.named_board = named.board.map(|b| b.firmware);
    }
    found.into_values().filter(|p| p.named || p.usb.as_ref().is_some_and(UsbIdentity::is_stlink)).collect()
}

/// Each link in `dir` and the device it leads to; a dangling link (a
/// board unplugged a moment ago) is not a port.
fn by_id_links(dir: &Path) -> Vec<(PathBuf, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let link = entry.path();
            let device = link.canonicalize().ok()?;
            Some((link, device))
        })
        .collect()
}

/// The OS's serial devices with their USB identity, if USB.
fn system_ports() -> BTreeMap<PathBuf, Option<UsbIdentity>> {
    // serialport's Linux scan panics where /sys/class/tty is missing (some
    // containers): such a host has no ports to offer.
    if cfg!(target_os = "linux") && !Path::new("/sys/class/tty").is_dir() {
        return BTreeMap::new();
    }
    let Ok(ports) = tokio_serial::available_ports() else { return BTreeMap::new() };
    ports
        .into_iter()
        .map(|info| {
            let usb = match info.port_type {
                tokio_serial::SerialPortType::UsbPort(usb) => Some(UsbIdentity {
                    vid: Some(usb.vid),
                    pid: Some(usb.pid),
                    serial_number: usb.serial_number,
                    manufacturer: usb.manufacturer,
                    product: usb.product,
                }),
                _ => None,
            };
            let path = PathBuf::from(&info.port_name);
            (path.canonicalize().unwrap_or(path), usb)
        })
        .collect()
}

/// What answered on a port.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// pqbench firmware, saying who it is.
    Firmware(Hello),
    /// Something else, or nothing, within the wait.
    NoFirmware,
    /// Another program has the port open: its name and pid, where this
    /// user may see them.
    Busy(Option<String>),
    /// The port could not be opened or read.
    Failed(String),
}

/// How long a port is given to answer `hello`: a chip answers within
/// milliseconds, but QEMU notices a client on its pseudo-terminal only on
/// its next one-second check, and drops what comes before.
pub const IDENTIFY_WAIT: Duration = Duration::from_secs(4);
/// `hello` is sent again this often: a chip's UART drops what arrives
/// before it is enabled.
const HELLO_EVERY: Duration = Duration::from_millis(400);

/// Opens `port` at 115200 baud, 8N1 (the bundled firmware's settings), and
/// asks it `hello`.
pub async fn identify(port: &Path, wait: Duration) -> Answer {
    if let Some(holder) = held_by_another(port) {
        return Answer::Busy(Some(holder));
    }
    let path = port.to_string_lossy().into_owned();
    let mut stream = match open(&path) {
        Ok(stream) => stream,
        Err(e) if is_busy(&e) => return Answer::Busy(None),
        Err(e) => return Answer::Failed(format!("opening {path}: {e}")),
    };
    let mut decoder = Decoder::new();
    let mut buf = [0u8; 512];
    let deadline = tokio::time::Instant::now() + wait;
    let hello = Command::Hello.to_string();
    while tokio::time::Instant::now() < deadline {
        if let Err(e) = stream.write_all(hello.as_bytes()).await {
            return Answer::Failed(format!("writing to {path}: {e}"));
        }
        let next = (tokio::time::Instant::now() + HELLO_EVERY).min(deadline);
        while let Ok(read) = tokio::time::timeout_at(next, stream.read(&mut buf)).await {
            match read {
                Ok(0) => return Answer::Failed(format!("{path} closed")),
                Ok(n) => {
                    for event in decoder.push(&buf[..n]) {
                        if let Event::Record(Record::Hello(hello)) = event {
                            return Answer::Firmware(hello);
                        }
                    }
                }
                Err(e) => return Answer::Failed(format!("reading {path}: {e}")),
            }
        }
    }
    Answer::NoFirmware
}

/// A port as the bundled firmware speaks: 115200 baud, 8 data bits, no
/// parity, one stop bit.
pub fn open(path: &str) -> tokio_serial::Result<tokio_serial::SerialStream> {
    tokio_serial::new(path, 115_200)
        .data_bits(tokio_serial::DataBits::Eight)
        .parity(tokio_serial::Parity::None)
        .stop_bits(tokio_serial::StopBits::One)
        .flow_control(tokio_serial::FlowControl::None)
        .open_native_async()
}

fn is_busy(e: &tokio_serial::Error) -> bool {
    e.kind == tokio_serial::ErrorKind::Io(std::io::ErrorKind::ResourceBusy)
        || e.description.contains("Device or resource busy")
}

/// Another process with `port` open, by its name and pid. A port opened
/// exclusively refuses others with EBUSY, but not root, and a terminal
/// program may not ask for exclusivity: so the processes' open files are
/// looked at too (those this user may see).
///
/// A pseudo-terminal's provider is not another client: a board simulator
/// or a bridge (socat, QEMU) holds the pty's master, and often its slave
/// too, as pty providers commonly do. A process holding the master of
/// this very pty (`/dev/ptmx` with the pty's `tty-index` in its fdinfo)
/// is the device, and does not make the port busy.
pub fn held_by_another(port: &Path) -> Option<String> {
    let device = port.canonicalize().ok()?;
    let pty_index = pty_index(&device);
    let me = std::process::id().to_string();
    let processes = std::fs::read_dir("/proc").ok()?;
    for process in processes.filter_map(Result::ok) {
        let pid = process.file_name().to_string_lossy().into_owned();
        if !pid.bytes().all(|b| b.is_ascii_digit()) || pid == me {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(process.path().join("fd")) else { continue };
        let (mut holds, mut provides) = (false, false);
        for fd in fds.filter_map(Result::ok) {
            let Ok(target) = std::fs::read_link(fd.path()) else { continue };
            if target == device {
                holds = true;
            } else if let Some(index) = pty_index
                && target.file_name().is_some_and(|name| name == "ptmx")
            {
                let info = process.path().join("fdinfo").join(fd.file_name());
                provides |= master_index(&info) == Some(index);
            }
        }
        if holds && !provides {
            let name = std::fs::read_to_string(process.path().join("comm")).unwrap_or_default();
            return Some(format!("{}, pid {pid}", name.trim()));
        }
    }
    None
}

/// N of a pty's slave, `/dev/pts/N`.
fn pty_index(device: &Path) -> Option<u32> {
    device.strip_prefix("/dev/pts").ok()?.to_str()?.parse().ok()
}

/// The pty a `/dev/ptmx` descriptor is the master of: its fdinfo's
/// `tty-index` (Linux 4.14 and later).
fn master_index(fdinfo: &Path) -> Option<u32> {
    let info = std::fs::read_to_string(fdinfo).ok()?;
    info.lines().find_map(|line| line.strip_prefix("tty-index:")).and_then(|index| index.trim().parse().ok())
}

/// The probe on the same ST-LINK as a port: an ST-LINK's probe serial
/// number is its virtual COM port's USB serial number (one USB device,
/// two interfaces). Nothing else pairs them: a port without a serial
/// number pairs with no probe.
pub fn paired_probe<'p>(port: &FoundPort, probe_serials: &'p [String]) -> Option<&'p str> {
    let serial = port.usb_serial()?;
    probe_serials.iter().map(String::as_str).find(|probe| probe.eq_ignore_ascii_case(serial))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pty held at both ends by its provider, as board simulators hold
    /// theirs: not busy. Held by another program too: busy, saying which.
    #[test]
    fn a_ptys_provider_does_not_make_it_busy_and_a_competitor_does() {
        let provider = "import os, pty, sys, time\nm, s = pty.openpty()\nprint(os.ttyname(s), flush=True)\ntime.sleep(30)";
        let mut simulator = std::process::Command::new("python3")
            .args(["-c", provider])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python3, to provide a pty");
        let mut line = String::new();
        let stdout = simulator.stdout.take().expect("piped");
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line).expect("the pty's name");
        let pty = std::path::PathBuf::from(line.trim());
        assert_eq!(held_by_another(&pty), None, "{} is its provider's, not busy", pty.display());
        let mut competitor = std::process::Command::new("sleep")
            .arg("30")
            .stdin(std::fs::File::open(&pty).expect("the pty opens"))
            .spawn()
            .expect("sleep");
        // The competitor's descriptors are in /proc once it has started.
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        let mut held = None;
        while held.is_none() && std::time::Instant::now() < deadline {
            held = held_by_another(&pty);
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = competitor.kill();
        let _ = simulator.kill();
        let _ = (competitor.wait(), simulator.wait());
        let held = held.expect("the competitor makes it busy");
        assert!(held.starts_with("sleep, pid "), "{held}");
    }

    #[test]
    fn every_live_board_id_is_one_an_import_may_not_take() {
        let emulated = pqbench_boards::BOARDS
            .iter()
            .filter(|board| matches!(board.reached, pqbench_boards::Reached::Emulated(_)))
            .map(|board| board.id().to_string());
        let live = [
            format!("{SERIAL_PREFIX}066DFF555185754867044030"),
            format!("{}066DFF", crate::boards::PROBE_PREFIX),
            "lab-1/serial:x".into(),
        ];
        for id in emulated.chain(live) {
            assert!(pqbench_api::imports::live_board_id(&id).is_some(), "an import could be filed as {id}");
        }
        assert_eq!(pqbench_api::imports::live_board_id("stm32f4discovery"), None);
    }

    fn port(usb: Option<UsbIdentity>) -> FoundPort {
        FoundPort {
            path: "/dev/ttyACM0".into(),
            device: "/dev/ttyACM0".into(),
            usb,
            named: false,
            named_board: None,
        }
    }

    fn usb(pid: u16, serial: &str) -> UsbIdentity {
        UsbIdentity {
            vid: Some(ST_VENDOR),
            pid: Some(pid),
            serial_number: Some(serial.into()),
            manufacturer: Some("STMicroelectronics".into()),
            product: Some("STM32 STLink".into()),
        }
    }

    #[test]
    fn udev_names_of_stlinks_read_as_stlinks() {
        // As udev names a NUCLEO-144's ST-LINK/V2-1 and an STLINK-V3.
        let v21 =
            UsbIdentity::from_by_id_name("usb-STMicroelectronics_STM32_STLink_066DFF555185754867044030-if02")
                .unwrap();
        assert_eq!(v21.serial_number.as_deref(), Some("066DFF555185754867044030"));
        assert_eq!(v21.product.as_deref(), Some("STM32 STLink"));
        assert!(v21.is_stlink());
        let v3 =
            UsbIdentity::from_by_id_name("usb-STMicroelectronics_STLINK-V3_003A00283438510A34313939-if01")
                .unwrap();
        assert_eq!(v3.serial_number.as_deref(), Some("003A00283438510A34313939"));
        assert!(v3.is_stlink());
        let ftdi = UsbIdentity::from_by_id_name("usb-FTDI_FT232R_USB_UART_A50285BI-if00-port0").unwrap();
        assert!(!ftdi.is_stlink());
        assert!(UsbIdentity::from_by_id_name("pci-0000:00:16.3").is_none());
    }

    #[test]
    fn stlinks_are_known_by_vendor_and_product() {
        for &(pid, _) in STLINK_PRODUCTS {
            assert!(usb(pid, "x").is_stlink(), "{pid:04x}");
        }
        assert!(!usb(0x5740, "x").is_stlink(), "ST's own CDC device, not an ST-LINK");
        let other = UsbIdentity { vid: Some(0x0403), pid: Some(0x6001), ..usb(0x374b, "x") };
        assert!(!other.is_stlink(), "an FTDI cable");
    }

    #[test]
    fn a_port_pairs_with_the_probe_of_its_own_serial_number() {
        let probes: Vec<String> =
            ["0671FF3833554B3043164817", "066DFF555185754867044030", "003A00283438510A34313939"]
                .map(String::from)
                .into();
        let nucleo = port(Some(usb(0x374b, "066DFF555185754867044030")));
        assert_eq!(paired_probe(&nucleo, &probes), Some("066DFF555185754867044030"));
        let v3 = port(Some(usb(0x374e, "003a00283438510a34313939")));
        assert_eq!(paired_probe(&v3, &probes), Some("003A00283438510A34313939"), "hex digits in either case");
        let unpaired = port(Some(usb(0x374b, "0668FF555185754867044031")));
        assert_eq!(paired_probe(&unpaired, &probes), None);
        assert_eq!(paired_probe(&port(None), &probes), None, "no serial number, no pairing");
        assert_eq!(nucleo.board_id(), "serial:066DFF555185754867044030");
        assert_eq!(port(None).board_id(), "serial:/dev/ttyACM0");
    }

    #[test]
    fn named_ports_say_which_board_is_there() {
        let named = NamedPort::parse("/dev/ttyUSB0=nucleo-f446ze").unwrap();
        assert_eq!(named.path, Path::new("/dev/ttyUSB0"));
        assert_eq!(named.board.map(|b| b.firmware), Some("nucleo-f446ze"));
        assert!(NamedPort::parse("/dev/ttyUSB0").unwrap().board.is_none());
        assert!(
            NamedPort::parse("/dev/ttyUSB0=nucleo-h7").unwrap_err().to_string().contains("nucleo-f446ze")
        );
        assert!(NamedPort::parse("=nucleo-f446ze").is_err());
    }

    #[test]
    fn a_scan_finds_stlink_links_and_named_ports_only() {
        let dir = tempfile::tempdir().unwrap();
        let devices = dir.path().join("dev");
        std::fs::create_dir(&devices).unwrap();
        let by_id = dir.path().join("by-id");
        std::fs::create_dir(&by_id).unwrap();
        for name in ["ttyACM0", "ttyUSB0", "ttyUSB1"] {
            std::fs::write(devices.join(name), b"").unwrap();
        }
        let link = |name: &str, device: &str| {
            std::os::unix::fs::symlink(devices.join(device), by_id.join(name)).unwrap()
        };
        link("usb-STMicroelectronics_STM32_STLink_066DFF555185754867044030-if02", "ttyACM0");
        link("usb-FTDI_FT232R_USB_UART_A50285BI-if00-port0", "ttyUSB0");
        link("usb-STMicroelectronics_STM32_STLink_0668FF000000000000000000-if02", "gone");
        let options = PortOptions {
            by_id: by_id.clone(),
            system_ports: false,
            named: vec![
                NamedPort::parse(&format!("{}=nucleo-f439zi", devices.join("ttyUSB1").display())).unwrap(),
            ],
        };
        let found = scan(&options);
        let ids: Vec<String> = found.iter().map(FoundPort::board_id).collect();
        assert_eq!(ids.len(), 2, "{ids:?}");
        assert!(ids.contains(&"serial:066DFF555185754867044030".to_string()), "{ids:?}");
        let named = found.iter().find(|p| p.named).unwrap();
        assert_eq!(named.named_board, Some("nucleo-f439zi"));
        assert_eq!(named.path, devices.join("ttyUSB1"));
    }
}
