use std::process::ExitCode;

fn main() -> ExitCode {
    threefold::main()
}
