#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# blktests-ctl-relay.pl CTL_SOCKET NS_DIR: bench/blktests' forwarder from
# the guest to `mqblk target`'s control socket. QEMU's slirp runs it once
# per guest connection to 10.0.2.100:4430 (guestfwd "cmd:"), with that
# connection on stdin/stdout. The control socket takes one line per
# connection and answers until it closes; so does this: it reads one line,
# checks it, passes it to CTL_SOCKET and copies the answer back.
#
# Only the live-configuration commands blktests-control sends pass
# (add-subsys, add-ns, add-host, allow-host, link, remove-subsys): the
# guest cannot stop the target or save its configuration over a file.
# add-ns's URI "@SIZE" (e.g. @512M) is the one thing done here: a new
# sparse file of SIZE in NS_DIR, named for the subsystem, takes its place
# (the guest cannot make files on this machine); remove-subsys deletes the
# subsystem's files once the target has answered ok.
use strict;
use warnings;
use IO::Socket::UNIX;

open(STDERR, '>', '/dev/null');
my ($ctl, $nsdir) = @ARGV;
exit 2 unless defined $nsdir && -S $ctl && -d $nsdir;
binmode STDIN;
binmode STDOUT;
$| = 1;

sub answer { print STDOUT "$_[0]\n"; exit 0; }

my $line = '';
while (length $line < 4096 && $line !~ /\n/) {
	my $n = sysread(STDIN, $line, 4096 - length $line, length $line);
	last unless $n;
}
$line =~ s/\r?\n.*//s;
my @w = split ' ', $line;
my %allowed = map { $_ => 1 } qw(add-subsys add-ns add-host allow-host link remove-subsys);
answer("error: blktests-ctl-relay: command '" . ($w[0] // '') . "' not passed to the target")
	unless @w && $allowed{ $w[0] };

# A file name for a subsystem: its NQN with anything but [A-Za-z0-9_-]
# as %XX, then "." NSID: two NQNs never share a name or a prefix.
sub ns_name {
	(my $name = $_[0]) =~ s/([^A-Za-z0-9_-])/sprintf('%%%02X', ord $1)/ge;
	return $name;
}
sub ns_file { return "$nsdir/" . ns_name($_[0]) . ".$_[1].img"; }

my @made;
if ($w[0] eq 'add-ns' && @w >= 4 && $w[3] =~ /^@([0-9]+)([KMG]?)$/) {
	my %mult = ('' => 1, K => 1 << 10, M => 1 << 20, G => 1 << 30);
	my $bytes = $1 * $mult{$2};
	answer("error: blktests-ctl-relay: size $w[3] is not within 1M..64G")
		if $bytes < (1 << 20) || $bytes > (64 << 30);
	answer("error: blktests-ctl-relay: NSID '$w[2]' is not a number")
		unless $w[2] =~ /^[0-9]{1,10}$/;
	my $f = ns_file($w[1], $w[2]);
	answer("error: blktests-ctl-relay: $f exists (namespace still configured?)") if -e $f;
	open(my $fh, '>', $f) or answer("error: blktests-ctl-relay: cannot create $f: $!");
	truncate($fh, $bytes) or answer("error: blktests-ctl-relay: cannot size $f: $!");
	close $fh;
	$w[3] = $f;
	push @made, $f;
}

my $s = IO::Socket::UNIX->new(Peer => $ctl, Type => SOCK_STREAM);
unless ($s) {
	unlink @made;
	answer("error: blktests-ctl-relay: cannot connect to $ctl: $!");
}
print $s join(' ', @w), "\n";
my $reply = '';
while (1) {
	my $n = sysread($s, $reply, 65536, length $reply);
	last unless $n;
}
close $s;
if ($reply !~ /^ok/) {
	unlink @made; # refused: nothing configured on it
} elsif ($w[0] eq 'remove-subsys' && @w >= 2) {
	my $prefix = ns_name($w[1]) . '.';
	if (opendir(my $d, $nsdir)) {
		unlink map { "$nsdir/$_" } grep { index($_, $prefix) == 0 } readdir $d;
		closedir $d;
	}
}
print STDOUT $reply;
exit 0;
