//! Sign-in, in the header, on a server whose writes need its token: the
//! token typed once, after which the browser's session cookie (which no
//! script here can read) goes with every write: Run, Share, Import. Nothing
//! is shown where writes need no token.

use leptos::prelude::*;
use leptos::task::spawn_local;
use pqbench_api::{NewSession, Session};

use crate::api;
use crate::context::Alert;

#[component]
pub fn SignIn() -> impl IntoView {
    let alert = expect_context::<Alert>();
    // Read once; signing in or out sets it from the server's answer.
    let session = RwSignal::new(None::<Session>);
    spawn_local(async move {
        if let Some(read) = alert.check(api::session().await) {
            session.set(Some(read));
        }
    });
    let token = RwSignal::new(String::new());
    let sign_in = move |event: leptos::ev::SubmitEvent| {
        event.prevent_default();
        let given = NewSession { token: token.get_untracked() };
        spawn_local(async move {
            alert.clear();
            if let Some(now) = alert.check(api::sign_in(&given).await) {
                token.set(String::new());
                session.set(Some(now));
            }
        });
    };
    let sign_out = move |_| {
        spawn_local(async move {
            if let Some(now) = alert.check(api::sign_out().await) {
                session.set(Some(now));
            }
        });
    };
    move || match session.get() {
        Some(Session { token_required: true, signed_in: true }) => view! {
            <div class="sign-in" id="signed-in">
                "Signed in "
                <button class="secondary" id="sign-out" on:click=sign_out>
                    "Sign out"
                </button>
            </div>
        }
        .into_any(),
        Some(Session { token_required: true, signed_in: false }) => view! {
            <form class="sign-in" id="sign-in" on:submit=sign_in>
                <label for="sign-in-token">"Writes need this server's token "</label>
                <input
                    id="sign-in-token"
                    type="password"
                    autocomplete="current-password"
                    required=true
                    prop:value=move || token.get()
                    on:input=move |event| token.set(event_target_value(&event))
                />
                " "
                <button type="submit">"Sign in"</button>
            </form>
        }
        .into_any(),
        _ => ().into_any(),
    }
}
