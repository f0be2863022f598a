//! Which board each probe is wired to, and how to connect to it: what the
//! person running pqbench says (`--probe`, `--probe-speed`,
//! `--connect-under-reset`).

use std::collections::HashMap;

use pqbench_boards::Board as CatalogueBoard;

use crate::boards::{BoardError, probe_boards};

/// Which board each probe is wired to, as the person running pqbench says:
/// a probe's USB identity does not tell what it is connected to; and how
/// to connect, where the defaults do not do.
#[derive(Debug, Clone, Default)]
pub struct ProbeWiring {
    boards: HashMap<String, &'static CatalogueBoard>,
    /// For every probe, then for the ones named.
    every: ProbeConnection,
    connections: HashMap<String, ProbeConnection>,
}

/// How a probe connects to its chip (`--probe-speed`,
/// `--connect-under-reset`): what a board that will not attach at the
/// defaults needs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProbeConnection {
    /// The SWD clock; the probe's own default when `None`.
    pub speed_khz: Option<u32>,
    /// Hold the chip in reset while attaching: for firmware that turns off
    /// the debug pins or sleeps at once.
    pub under_reset: bool,
}

/// The name `--connect-under-reset` alone stands for: every probe.
pub const EVERY_PROBE: &str = "*";

impl ProbeWiring {
    /// Reads `SERIAL=BOARD` pairs.
    pub fn parse<'s>(pairs: impl IntoIterator<Item = &'s str>) -> Result<ProbeWiring, BoardError> {
        let mut wiring = HashMap::new();
        for pair in pairs {
            let bad = || BoardError::BadWiring(pair.into());
            let (serial, board) = pair.split_once('=').ok_or_else(bad)?;
            let board = probe_boards().find(|b| b.firmware == board.trim()).ok_or_else(bad)?;
            if serial.trim().is_empty() {
                return Err(bad());
            }
            wiring.insert(serial.trim().to_string(), board);
        }
        Ok(ProbeWiring { boards: wiring, ..ProbeWiring::default() })
    }

    /// Reads `KHZ` (every probe) or `SERIAL=KHZ` (that one) items.
    pub fn with_speeds<'s>(mut self, items: impl IntoIterator<Item = &'s str>) -> Result<Self, BoardError> {
        for item in items {
            let bad = || BoardError::BadProbeSpeed(item.into());
            let (serial, khz) = match item.rsplit_once('=') {
                Some((serial, khz)) if !serial.trim().is_empty() => (Some(serial.trim()), khz),
                Some(_) => return Err(bad()),
                None => (None, item),
            };
            let khz: u32 = khz.trim().parse().map_err(|_| bad())?;
            if !(1..=100_000).contains(&khz) {
                return Err(bad());
            }
            match serial {
                Some(serial) => {
                    self.connections.entry(serial.into()).or_insert(self.every).speed_khz = Some(khz)
                }
                None => self.every.speed_khz = Some(khz),
            }
        }
        self.spread_every();
        Ok(self)
    }

    /// Probes to attach under reset: serials, or [`EVERY_PROBE`].
    pub fn with_under_reset<'s>(mut self, serials: impl IntoIterator<Item = &'s str>) -> Self {
        for serial in serials.into_iter().map(str::trim).filter(|s| !s.is_empty()) {
            if serial == EVERY_PROBE {
                self.every.under_reset = true;
            } else {
                self.connections.entry(serial.into()).or_insert(self.every).under_reset = true;
            }
        }
        self.spread_every();
        self
    }

    /// What is set for every probe holds for the ones named too, unless
    /// named otherwise.
    fn spread_every(&mut self) {
        for connection in self.connections.values_mut() {
            connection.under_reset |= self.every.under_reset;
            connection.speed_khz = connection.speed_khz.or(self.every.speed_khz);
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.boards.is_empty()
    }

    pub(crate) fn board(&self, serial: &str) -> Option<&'static CatalogueBoard> {
        self.boards.get(serial).copied()
    }

    /// How to connect to the probe with this serial.
    pub fn connection(&self, serial: &str) -> ProbeConnection {
        self.connections.get(serial).copied().unwrap_or(self.every)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_speed_and_a_reset_hold_for_every_probe_unless_one_is_named_otherwise() {
        let wiring = ProbeWiring::parse(["A=nucleo-f446ze"])
            .unwrap()
            .with_speeds(["B=480", "1800"])
            .unwrap()
            .with_under_reset(["C"]);
        assert_eq!(wiring.connection("A"), ProbeConnection { speed_khz: Some(1800), under_reset: false });
        assert_eq!(wiring.connection("B"), ProbeConnection { speed_khz: Some(480), under_reset: false });
        assert_eq!(wiring.connection("C"), ProbeConnection { speed_khz: Some(1800), under_reset: true });
        let all = ProbeWiring::default().with_under_reset([EVERY_PROBE]);
        assert_eq!(all.connection("any"), ProbeConnection { speed_khz: None, under_reset: true });
        assert_eq!(ProbeWiring::default().connection("any"), ProbeConnection::default());
    }

    #[test]
    fn a_speed_that_is_not_a_number_of_khz_is_refused_with_the_form_expected() {
        for bad in ["fast", "0", "100001", "=400", "A=", "A=4.5", "-1"] {
            match ProbeWiring::default().with_speeds([bad]) {
                Err(e @ BoardError::BadProbeSpeed(_)) => {
                    let said = e.to_string();
                    assert!(
                        said.contains(&format!("{bad:?}")) && said.contains("KHZ or SERIAL=KHZ"),
                        "{said}"
                    );
                }
                other => panic!("{bad:?} taken: {other:?}"),
            }
        }
    }
}
