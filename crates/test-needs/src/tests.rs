use super::*;

#[test]
fn a_missing_need_says_what_and_how() {
    let missing = Missing::new("the firmware image x.elf", "build it");
    assert_eq!(missing.to_string(), "needs the firmware image x.elf, which is missing: build it");
}

#[test]
fn a_program_not_on_path_is_missing_by_its_names() {
    let missing = program(&["pqbench-no-such-program", "nor-this"], "install it").unwrap_err();
    assert_eq!(missing.need, "the program pqbench-no-such-program or nor-this");
    assert!(program(&["sh"], "").is_ok(), "sh is on every PATH");
}

/// The tiers are told apart in a child process of this test binary, so
/// the variables never leak into the other tests.
#[test]
fn the_quick_tier_skips_by_name_and_the_full_tier_fails_naming_what_is_missing() {
    let exe = std::env::current_exe().unwrap();
    let dir = std::env::temp_dir().join(format!("pqbench-test-needs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let skipped = dir.join("skipped.txt");
    let _ = std::fs::remove_file(&skipped);
    // One ignored test of this binary, alone, in `tier`.
    let run = |test: &str, tier: &str| {
        std::process::Command::new(&exe)
            .args(["--exact", test, "--include-ignored", "--test-threads=1"])
            .env(TIER_VAR, tier)
            .env(SKIPPED_VAR, &skipped)
            .env(DIST_VAR, &dir)
            .env_remove(POSTGRES_VAR)
            .output()
            .unwrap()
    };
    let child = |tier: &str| run("tests::needs_a_missing_image", tier);
    let quick = child("quick");
    assert!(quick.status.success(), "{}", String::from_utf8_lossy(&quick.stdout));
    let lines = std::fs::read_to_string(&skipped).unwrap();
    assert_eq!(
        lines,
        format!(
            "tests::needs_a_missing_image\tthe firmware image nope.elf ({}/firmware/nope.elf)\n",
            dir.display()
        )
    );

    let full = child("full");
    assert!(!full.status.success(), "the full tier passed a test whose image is missing");
    let said = String::from_utf8_lossy(&full.stdout);
    assert!(said.contains("needs the firmware image nope.elf"), "{said}");
    assert_eq!(std::fs::read_to_string(&skipped).unwrap(), lines, "the full tier recorded a skip");

    // The same for a PostgreSQL half, which a store test skips or fails
    // alone (`or_skip`) beside its SQLite half.
    let _ = std::fs::remove_file(&skipped);
    let postgres = |tier: &str| run("tests::has_a_postgresql_half", tier);
    let quick = postgres("quick");
    assert!(quick.status.success(), "{}", String::from_utf8_lossy(&quick.stdout));
    assert_eq!(
        std::fs::read_to_string(&skipped).unwrap(),
        format!("tests::has_a_postgresql_half\ta PostgreSQL server ({POSTGRES_VAR} unset)\n")
    );
    let full = postgres("full");
    let said = String::from_utf8_lossy(&full.stdout);
    assert!(!full.status.success(), "the full tier passed without PostgreSQL");
    assert!(
        said.contains("needs a PostgreSQL server (PQBENCH_TEST_POSTGRES unset), which is missing"),
        "{said}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Run only by the test above: its first half needs nothing, its second
/// half PostgreSQL.
#[test]
#[ignore = "run by the_quick_tier_skips_by_name_..., in a child process"]
fn has_a_postgresql_half() {
    // The half that needs nothing would run here, in either tier.
    let Some(_url) = or_skip(postgres()) else { return };
    panic!("reached with no PostgreSQL");
}

/// Run only by the test above, in a child with the tier it sets.
#[test]
#[ignore = "run by the_quick_tier_skips_by_name_..., in a child process"]
fn needs_a_missing_image() {
    let _image = require!(firmware_image("nope.elf"));
    panic!("reached with no image");
}
