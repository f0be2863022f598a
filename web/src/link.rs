//! The page's address as a view's deep link.

/// The query of the address the page was opened at (with its `?`).
pub fn query() -> String {
    web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default()
}

/// Puts `query` in the address bar without a reload or a history entry per
/// click (the back button leaves the dashboard, not the last sort).
pub fn show(query: &str) {
    let Some(window) = web_sys::window() else { return };
    let path = window.location().pathname().unwrap_or_else(|_| "/".into());
    let url = if query.is_empty() { path } else { format!("{path}?{query}") };
    if let Ok(history) = window.history() {
        // A failure leaves the old address; the page itself is unaffected.
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

/// The report id when the page is a shared report (`/reports/<id>`).
pub fn report_id() -> Option<String> {
    let path = web_sys::window()?.location().pathname().ok()?;
    let id = path.strip_prefix("/reports/")?.trim_end_matches('/');
    Some(id.to_string()).filter(|id| !id.is_empty())
}

/// `path` on this server, as a link to give someone.
pub fn absolute(path: &str) -> String {
    let origin = web_sys::window().and_then(|w| w.location().origin().ok()).unwrap_or_default();
    format!("{origin}{path}")
}
