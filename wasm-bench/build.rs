//! Writes down what this build is, for the upload's `build` record.

fn main() {
    pqbench_build_info::emit();
}
