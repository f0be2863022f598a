//! Records as text lines on the serial port, in the `pqbench-wire` format.

use core::fmt::{self, Write};

use pqbench_suite::Reporter;
use pqbench_suite::calibrate::Calibration;
use pqbench_types::{Algorithm, Measurement, Measuring, Operation};
use pqbench_wire::{RecordWriter, kind, write_measurement, write_measuring};

use super::fields;
use crate::boards::{Clocks, Serial, board};
use crate::build_id;

pub struct Records<'a>(&'a mut Serial);

impl<'a> Records<'a> {
    pub fn new(port: &'a mut Serial) -> Self {
        Records(port)
    }

    /// A record whose port fails is lost; there is nowhere else to say so.
    fn send(&mut self, kind: &str, fields: impl FnOnce(&mut RecordWriter<'_, Serial>) -> fmt::Result) {
        let _ = RecordWriter::begin(self.0, kind).and_then(|mut r| {
            fields(&mut r)?;
            r.finish()
        });
    }

    /// Free text for a person watching the port.
    pub fn banner(&mut self) {
        let _ = writeln!(self.0, "pqbench firmware on {}: send 'hello' or 'run'\r", board::ID);
    }

    /// Who this board and build are, and the clocks it runs at: the first
    /// record of every run.
    pub fn hello(&mut self, clocks: &Clocks) {
        let build_id = build_id::hex();
        self.send(kind::HELLO, |r| fields::hello(r, build_id.as_str(), clocks));
    }

    pub fn calibration(&mut self, calibration: &Calibration) {
        self.send(kind::CALIBRATION, |r| fields::calibration(r, calibration));
    }

    pub fn error(&mut self, message: &str) {
        self.send(kind::ERROR, |r| fields::error(r, message));
    }
}

/// An error record from a panic or fault handler, which owns nothing.
pub fn fault(message: &str) {
    Records::new(&mut Serial::steal()).error(message);
}

impl Reporter for Records<'_> {
    fn begin(&mut self, operations: u32) {
        self.send(kind::BEGIN, |r| fields::begin(r, operations));
    }

    fn progress(&mut self, algorithm: Algorithm, operation: Operation, index: u32, total: u32) {
        self.send(kind::OP, |r| fields::progress(r, algorithm, operation, index, total));
    }

    fn measuring(&mut self, status: &Measuring) {
        let _ = write_measuring(self.0, status);
    }

    fn result(&mut self, measurement: &Measurement) {
        let _ = write_measurement(self.0, measurement);
    }

    fn end(&mut self, results: u32) {
        self.send(kind::END, |r| fields::end(r, results));
    }
}
