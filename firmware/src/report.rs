//! Records over the serial port, in the `pqbench-wire` format.

use core::fmt::Write;

use pqbench_suite::Reporter;
use pqbench_suite::calibrate::{self, Calibration};
use pqbench_types::{Algorithm, Measurement, Operation};
use pqbench_wire::{RecordWriter, kind, write_measurement};

use crate::boards::{Serial, board};

/// Who this board and build are: the first record of every run.
pub fn hello(serial: &mut Serial) {
    let _ = (|| {
        let mut r = RecordWriter::begin(serial, kind::HELLO)?;
        r.field("fw", concat!("pqbench-firmware/", env!("CARGO_PKG_VERSION")))?;
        r.field("board", board::ID)?;
        r.field("mcu", board::MCU)?;
        r.field("core", board::CORE)?;
        r.field("clock_hz", board::CLOCK_HZ)?;
        r.field("ticks_per_second", board::TICKS_PER_SECOND)?;
        r.field("tick_unit", board::TICK_UNIT)?;
        r.field("heap_bytes", board::HEAP_BYTES)?;
        r.field("rev", env!("PQBENCH_REVISION"))?;
        r.field("rustc", env!("PQBENCH_RUSTC"))?;
        r.field("target", env!("PQBENCH_TARGET"))?;
        r.field("profile", env!("PQBENCH_PROFILE"))?;
        r.field("opt", env!("PQBENCH_OPT_LEVEL"))?;
        r.field("lto", env!("PQBENCH_LTO"))?;
        r.field("features", env!("PQBENCH_FEATURES"))?;
        r.field("crates", env!("PQBENCH_CRATES"))?;
        r.finish()
    })();
}

pub fn calibration(serial: &mut Serial, calibration: &Calibration) {
    let _ = RecordWriter::begin(serial, kind::CALIBRATION).and_then(|mut r| {
        r.field("stack_buffer", calibrate::STACK_BUFFER)?;
        r.optional("stack", calibration.stack.stack_bytes)?;
        r.field("heap_buffer", calibrate::HEAP_BUFFER)?;
        r.optional("heap", calibration.heap.heap_bytes)?;
        r.optional("allocs", calibration.heap.heap_allocs)?;
        r.finish()
    });
}

pub fn error(serial: &mut impl Write, message: &str) {
    let _ = RecordWriter::begin(serial, kind::ERROR).and_then(|mut r| {
        r.field("msg", message)?;
        r.finish()
    });
}

pub struct SerialReporter<'a>(pub &'a mut Serial);

impl Reporter for SerialReporter<'_> {
    fn begin(&mut self, operations: u32) {
        let _ = RecordWriter::begin(self.0, kind::BEGIN).and_then(|mut r| {
            r.field("operations", operations)?;
            r.finish()
        });
    }

    fn progress(&mut self, algorithm: Algorithm, operation: Operation, index: u32, total: u32) {
        let _ = RecordWriter::begin(self.0, kind::OP).and_then(|mut r| {
            r.field("alg", algorithm)?;
            r.field("op", operation)?;
            r.field("n", index)?;
            r.field("of", total)?;
            r.finish()
        });
    }

    fn result(&mut self, measurement: &Measurement) {
        let _ = write_measurement(self.0, measurement);
    }

    fn end(&mut self, results: u32) {
        let _ = RecordWriter::begin(self.0, kind::END).and_then(|mut r| {
            r.field("results", results)?;
            r.finish()
        });
    }
}
