//! A panic in the dashboard, said in the browser's console with its
//! message, its place and the JavaScript stack that reached it: a wasm
//! panic otherwise shows only "unreachable executed", and the message is
//! the first thing a bug report needs.
//!
//! Our own, not the `console_error_panic_hook` crate: its repository is
//! archived, and what it does is these few lines.

use std::sync::Once;

/// Installs the hook, once however often it is called.
pub fn install() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            // An `Error` carries the stack the browser shows beside it.
            let error = js_sys::Error::new(&info.to_string());
            web_sys::console::error_1(&error);
        }));
    });
}
