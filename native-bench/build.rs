//! Writes down what this build is, for native runs' `build` record.

fn main() {
    pqbench_build_info::emit();
}
